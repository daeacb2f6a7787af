/** Shared by the summary tests: generation with a pinned clock, and /message with validation. */
import { join } from 'node:path';
import type { App } from '../../src/http/types.ts';
import { type GenerateOptions, type GenerateStats, generateSummaries } from '../../src/services/summaries/generate.ts';
import type { Storage } from '../../src/storage/database.ts';
import { call, fixturesDir } from '../helper.ts';
import { assertValidDiscordEmbed, assertValidSlackBlocks } from './platform-limits.ts';

export const SUMMARIES_FIXTURE = join(fixturesDir, 'summaries.json');

/** Keys of test/fixtures/summaries.json (user u_zoe, America/Los_Angeles, free plan). */
export const ZOE = {
  summaries: 'dbk_summaries_zoe_0123456789abcdef',
  reports: 'dbk_summaries_zoe_reports_0123456789',
  userOnly: 'dbk_summaries_zoe_user_0123456789ab',
} as const;

/** 2027-01-05 12:00 in Los Angeles: every period of 2026 has ended for u_zoe. */
export const AFTER_2026 = Date.parse('2027-01-05T20:00:00Z');

export function generate(
  storage: Storage,
  now: number,
  options: Omit<GenerateOptions, 'now'> = {},
): Promise<GenerateStats> {
  return generateSummaries(storage, { ...options, now });
}

/**
 * GET (query string) or POST (JSON body) /message. Every Slack or Discord content that comes
 * back is checked against the platform's limits.
 */
export async function fetchMessage(
  app: App,
  key: string,
  params: Record<string, string> = {},
  method: 'GET' | 'POST' = 'GET',
) {
  const res =
    method === 'GET'
      ? await call(app, 'GET', `/message${Object.keys(params).length ? `?${new URLSearchParams(params)}` : ''}`, {
          key,
        })
      : await call(app, 'POST', '/message', { key, body: params });
  if (res.status === 200 && res.json.format === 'slack') assertValidSlackBlocks(res.json.content);
  if (res.status === 200 && res.json.format === 'discord') assertValidDiscordEmbed(res.json.content);
  return res;
}
