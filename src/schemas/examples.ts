/**
 * The example request of each operation, as /docs fills it in for "Try it out". Every one
 * succeeds with the demo key on the workspace a first start creates (src/first-run.ts): the ids
 * and names are that workspace's, and the dates lie in its last days.
 *
 * Dates cannot be fixed: a range or a day written once would leave the demo's days behind. The
 * route schemas carry the examples dated from DOCUMENT_DAY, which is what the committed
 * docs/openapi.json shows; the server swaps in those dated from the day it serves the document
 * (openapi.ts), so Execute finds data whenever it is pressed.
 */
import { addDays, firstInstantOfLocalDay } from '../lib/time.ts';

/** The activity POST /activities's example records and DELETE /activities/:id's deletes. */
export const EXAMPLE_ACTIVITY_ID = 'act_docs_example';

/** The task POST /tasks's example creates, POST /tasks/:id's renames and DELETE /tasks/:id's deletes. */
export const EXAMPLE_TASK_ID = 'task_docs_example';

/** The day (UTC) the committed document's examples are dated from; a Monday. */
const DOCUMENT_DAY = '2026-11-23';

/** The examples that depend on the day, dated from `today` (YYYY-MM-DD, UTC). */
export function datedExamples(today: string) {
  return {
    /** The 7 UTC days before today, one row per day, newest first. */
    report: {
      dateRange: { from: firstInstantOfLocalDay(addDays(today, -7), 'UTC'), to: firstInstantOfLocalDay(today, 'UTC') },
      aggregationLevel: 'day' as const,
      sort: 'desc' as const,
    },
    /**
     * The week before last as text. A week rather than yesterday: yesterday may be a weekend day
     * or a day off without tracked time, hence without a summary (404), while a whole work week
     * has some. Eight days back, its week has ended in every timezone (UTC−12 to UTC+14), so its
     * summary exists.
     */
    message: { date: addDays(today, -8), level: 'week', format: 'text' },
    /** Half an hour of yesterday morning (UTC), under an id DELETE /activities/:id's example names. */
    activities: {
      activities: [
        {
          id: EXAMPLE_ACTIVITY_ID,
          start: `${addDays(today, -1)}T09:00:00Z`,
          durationMinutes: 30,
          headline: 'Reviewed the release notes',
          description: null,
        },
      ],
    },
    /** An hour and a half of yesterday from 09:00 local, on a project of the demo's team. */
    task: {
      id: EXAMPLE_TASK_ID,
      title: 'Reviewed the release notes',
      date: addDays(today, -1),
      project: 'Public API',
      minutes: 90,
    },
    dayComment: { date: addDays(today, -1), comment: 'Release day: notes reviewed, API docs updated.' },
    /** Two heartbeats of an editor, yesterday from 09:00 UTC, as wakatime-cli sends them. */
    heartbeats: [0, 120].map((offset) => ({
      entity: '/home/dev/daybook/src/server.ts',
      type: 'file',
      category: 'coding',
      time: firstInstantOfLocalDay(addDays(today, -1), 'UTC') / 1000 + 9 * 3600 + offset,
      project: 'Public API',
      branch: 'main',
      language: 'TypeScript',
      is_write: offset > 0,
      lines: 120,
      lineno: 42,
      cursorpos: 7,
      user_agent: 'wakatime/v1.115.2 (linux-6.1.0-amd64) go1.24.4 vscode/1.101.0 vscode-wakatime/25.0.5',
    })),
  };
}

export const DOCUMENT_EXAMPLES = datedExamples(DOCUMENT_DAY);

/** A team project of the first-run demo that its key's owner (the team's admin) can see. */
export const EXAMPLE_PROJECT_ID = 'prj_platform_public-api';

export const PROJECT_CREATE_EXAMPLE = {
  name: 'Website relaunch',
  description: 'New landing pages and a clearer pricing table.',
  color: '#6C63FF',
  team: 'Platform',
  private: false,
};

export const PROJECT_UPDATE_EXAMPLE = {
  description: 'The HTTP API our customers integrate with: endpoints, limits, docs and SDKs.',
  color: '#00C2FF',
};

export const LEGACY_PROJECT_EXAMPLE = { operation: 'list', archived: false };

export const SEARCH_EXAMPLE = { query: 'billing', limit: 5, days: 7, sources: ['tasks', 'activity'] };
