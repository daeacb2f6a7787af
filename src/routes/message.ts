import type { RouteModule } from '../http/types.ts';
import { errorResponses } from '../schemas/common.ts';
import { MessageBody, type MessageParams, MessageQuery, MessageResponse } from '../schemas/message.ts';
import type { UserRow } from '../storage/accounts.ts';
import { readMessage } from '../services/summaries/message.ts';

const responses = { 200: MessageResponse, ...errorResponses(404) };

const description = [
  'The stored summary of the local day, week (by the account week start), calendar month, quarter or year',
  'containing `date`: total tracked time, time per project and per category, tasks longest first, the day',
  'comments and the change against the previous period of the same level. A summary exists once its period',
  'has ended in the account timezone and has tracked time; the server builds due summaries on a schedule',
  '(`DAYBOOK_SUMMARY_INTERVAL_SECONDS`) and `daybook summaries generate` does so on demand; a period whose data',
  'changes later is rebuilt on the next run. Otherwise 404 `No summary exists for this date and level yet.`',
  'Formats: `html` (self-contained fragment, user text escaped), `text`, `slack` (Block Kit blocks: ≤ 50 blocks,',
  'header ≤ 150 characters, section text ≤ 3000, `&<>` escaped in mrkdwn) and `discord` (one embed: title ≤ 256,',
  'description ≤ 4096, ≤ 25 fields of name ≤ 256 and value ≤ 1024, footer ≤ 2048, ≤ 6000 characters in all);',
  'long lists end with an "and N more" line. `metadata.subject` reads e.g. `Alice\'s daily summary: Nov 20`,',
  "`…'s weekly summary: Nov 16 – Nov 22`, `…'s monthly summary: November 2026`, `…'s quarterly summary: Q4 2026`,",
  "`…'s yearly summary: 2026`. Durations read `7 h 35 min`, `45 min`, `2 h`.",
].join(' ');

const messageRoutes: RouteModule = (app, deps) => {
  const answer = async (user: UserRow, params: MessageParams) => ({
    success: true as const,
    ...(await readMessage(deps.storage.db, user, params, deps.now())),
  });

  app.get(
    '/message',
    {
      config: { scope: 'summaries:read' },
      schema: {
        summary: 'A formatted summary (parameters in the query string)',
        description,
        tags: ['summaries'],
        querystring: MessageQuery,
        response: responses,
      },
    },
    (request) => answer(request.auth.user, request.query),
  );
  app.post(
    '/message',
    {
      config: { scope: 'summaries:read' },
      schema: {
        summary: 'A formatted summary (parameters in the JSON body)',
        description,
        tags: ['summaries'],
        body: MessageBody,
        response: responses,
      },
    },
    (request) => answer(request.auth.user, request.body),
  );
};

export default messageRoutes;
