import { createHash, randomBytes } from 'node:crypto';

/** A new secret: 32 random bytes (256 bits), URL-safe, with a recognisable prefix. */
export function generateApiKey(): string {
  return `dbk_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')}`;
}
