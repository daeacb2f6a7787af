import Type from 'typebox';
import type { RouteModule } from '../http/app.ts';
import { errorResponses } from '../http/schemas.ts';
import type { UserRow } from '../storage/accounts.ts';
import { FORMATS, type MessageParams, readMessage } from '../services/summaries/message.ts';
import { LEVELS } from '../services/summaries/periods.ts';

const optionalText = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }));

// Values are checked by the service, so a 400 names the field and the value it got.
const MessageParamsSchema = Type.Object({
  date: optionalText('YYYY-MM-DD in the account timezone; default yesterday.'),
  level: optionalText(`One of ${LEVELS.join(', ')}; default day.`),
  format: optionalText(`One of ${FORMATS.join(', ')}; default html.`),
});

const MessageResponse = Type.Object({
  success: Type.Literal(true),
  level: Type.String(),
  format: Type.String(),
  content: Type.Union(
    [
      Type.String({ description: 'html and text' }),
      Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'slack: Block Kit blocks' }),
      Type.Object({}, { additionalProperties: true, description: 'discord: one embed object' }),
    ],
  ),
  metadata: Type.Object({ subject: Type.String({ description: 'Suggested e-mail subject line.' }) }),
});

const responses = { 200: MessageResponse, ...errorResponses(404) };

const messageRoutes: RouteModule = (app, deps) => {
  const answer = async (user: UserRow, params: MessageParams) => ({
    success: true as const,
    ...(await readMessage(deps.storage.db, user, params, deps.now())),
  });

  app.get(
    '/message',
    {
      config: { scope: 'summaries:read' },
      schema: { summary: 'A formatted summary (parameters in the query string)', tags: ['summaries'], querystring: MessageParamsSchema, response: responses },
    },
    (request) => answer(request.auth.user, request.query),
  );
  app.post(
    '/message',
    {
      config: { scope: 'summaries:read' },
      schema: { summary: 'A formatted summary (parameters in the JSON body)', tags: ['summaries'], body: MessageParamsSchema, response: responses },
      // No body at all means the defaults, like `{}`.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    (request) => answer(request.auth.user, request.body),
  );
};

export default messageRoutes;
