/**
 * Schemas of GET and POST /message: the parameters, in the query string or the JSON body, and
 * the summary in each format. A 400 names the field and the value it got (docs/api.md).
 */
import Type, { type Static } from 'typebox';
import { FORMATS } from '../services/summaries/message.ts';
import { LEVELS } from '../services/summaries/periods.ts';
import { DOCUMENT_EXAMPLES } from './examples.ts';

const example = DOCUMENT_EXAMPLES.message;

/** A string among `values`; its type is checked first, so a number is told it is not a string. */
const oneOf = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

const date = Type.String({
  format: 'date',
  examples: [example.date],
  description: 'YYYY-MM-DD in the account timezone; default yesterday.',
  'x-error': 'date must be a date in the form YYYY-MM-DD (got "{value}")',
});
const level = oneOf(LEVELS, {
  examples: [example.level],
  description: `One of ${LEVELS.join(', ')}; default day.`,
  'x-error': `level must be one of ${LEVELS.join(', ')} (got "{value}")`,
});
const format = oneOf(FORMATS, {
  examples: [example.format],
  description: `One of ${FORMATS.join(', ')}; default html.`,
  'x-error': `format must be one of ${FORMATS.join(', ')} (got "{value}")`,
});
const orNull = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * GET: a query string has no null; allowing one would let Ajv's coercion read an empty `date=`
 * as null, and so as no date, where it is a 400.
 */
export const MessageQuery = Type.Object({
  date: Type.Optional(date),
  level: Type.Optional(level),
  format: Type.Optional(format),
});

/** POST: the same parameters, where null is the same as leaving one out. */
export const MessageBody = Type.Object(
  {
    date: Type.Optional(orNull(date)),
    level: Type.Optional(orNull(level)),
    format: Type.Optional(orNull(format)),
  },
  { examples: [example] },
);
export type MessageParams = Static<typeof MessageBody>;

const PlainText = Type.Object({
  type: Type.Literal('plain_text'),
  text: Type.String(),
  emoji: Type.Optional(Type.Boolean()),
});
const SlackText = Type.Union([PlainText, Type.Object({ type: Type.Literal('mrkdwn'), text: Type.String() })]);

export const SlackBlock = Type.Union([
  Type.Object({ type: Type.Literal('header'), text: PlainText }),
  Type.Object({ type: Type.Literal('section'), text: SlackText }),
  Type.Object({ type: Type.Literal('divider') }),
  Type.Object({ type: Type.Literal('context'), elements: Type.Array(SlackText) }),
]);
export type SlackBlock = Static<typeof SlackBlock>;

export const DiscordEmbed = Type.Object(
  {
    title: Type.String(),
    description: Type.String(),
    color: Type.Integer(),
    fields: Type.Array(Type.Object({ name: Type.String(), value: Type.String(), inline: Type.Boolean() })),
    footer: Type.Object({ text: Type.String() }),
  },
  { description: 'discord: one embed object' },
);
export type DiscordEmbed = Static<typeof DiscordEmbed>;

export const MessageResponse = Type.Object({
  success: Type.Literal(true),
  level: oneOf(LEVELS),
  format: oneOf(FORMATS),
  content: Type.Union([
    Type.String({ description: 'html and text' }),
    Type.Array(SlackBlock, { description: 'slack: Block Kit blocks' }),
    DiscordEmbed,
  ]),
  metadata: Type.Object({ subject: Type.String({ description: 'Suggested e-mail subject line.' }) }),
});
export type MessageResponse = Static<typeof MessageResponse>;
