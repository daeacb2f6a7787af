/** The three-timezone report fixture (test/fixtures/reports-three-zones.json) and its keys. */
import { join } from 'node:path';
import { fixturesDir } from '../helper.ts';

export const ZONES = join(fixturesDir, 'reports-three-zones.json');

export const ZONE_KEYS = {
  ny: 'dbk_zones_ny_0123456789abcdef0123',
  berlin: 'dbk_zones_berlin_0123456789abcdef',
  kolkata: 'dbk_zones_kolkata_0123456789abcde',
  gone: 'dbk_zones_gone_0123456789abcdef01',
} as const;
