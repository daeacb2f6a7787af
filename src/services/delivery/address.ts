/**
 * Which URLs a delivery may be sent to (docs/delivery.md, "Safety"): https only, no credentials
 * in the URL, and only public unicast addresses, both as written and as the host name resolves
 * when the URL is saved and again on every attempt (so a name that later resolves to a private
 * address is refused too). `allowPrivate` (DAYBOOK_DELIVERY_ALLOW_PRIVATE) lifts the address
 * rule and allows http, for receivers on the same machine or network.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An address no delivery may reach: what the caller is told, without the URL's secret parts. */
export class RefusedAddress extends Error {}

/**
 * Whether an address is public unicast: not private, loopback, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved, documentation or unspecified; IPv4 written inside IPv6
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it is.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

function refusal(host: string, address: string): string {
  const which = host === address ? address : `${host} is ${address}`;
  return `url must not point to a private, loopback or link-local address (${which})`;
}

/** The host of a URL without the brackets of an IPv6 literal. */
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * What is wrong with a destination URL as written, or null: the scheme, credentials, and an
 * address literal that is not public.
 */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL such as https://hooks.example.com/…';
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    return allowPrivate ? 'url must be an http or https URL' : 'url must be an https URL';
  if (url.username || url.password) return 'url must not hold a user name or password';
  const host = bare(url.hostname);
  if (!allowPrivate && isIP(host) && !isPublicAddress(host)) return refusal(host, host);
  return null;
}

/** How long saving a destination waits for its host name to resolve. */
const RESOLVE_WAIT_MS = 3000;

/**
 * Resolves the URL's host name and names a private address it resolves to, or null. A name
 * that does not resolve now (or not within 3 s) passes: it is checked again on every attempt.
 */
export async function resolvedProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const host = bare(new URL(raw).hostname);
  if (isIP(host)) return null;
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), RESOLVE_WAIT_MS);
    dnsLookup(host, { all: true }, (err, found) => {
      clearTimeout(timer);
      resolve(err ? [] : found);
    });
  });
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  return refused ? refusal(host, refused.address) : null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses a host whose addresses are not all public, so
 * the address connected to is the address checked (no second resolution in between).
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused) return callback(new RefusedAddress(refusal(hostname, refused.address)), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** Refuses, before connecting, a URL whose host is an address literal that is not public. */
export function checkLiteralAddress(raw: string, allowPrivate: boolean): void {
  const host = bare(new URL(raw).hostname);
  if (!allowPrivate && isIP(host) && !isPublicAddress(host)) throw new RefusedAddress(refusal(host, host));
}

/** `https://hooks.slack.com/…WXYZ`: enough to tell destinations apart, not enough to post to one. */
export function maskUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '…';
  }
  const rest = `${url.pathname}${url.search}`;
  const tail = rest.length > 8 ? rest.slice(-4) : '';
  return `${url.protocol}//${url.host}/…${tail}`;
}
