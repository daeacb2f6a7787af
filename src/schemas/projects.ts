/**
 * Schemas of `/projects` and the deprecated `/project`. Fields whose errors the spec words its
 * own way (`color`, `contributorIds`, `confidential` on update) carry that wording (`x-error`,
 * src/http/validation.ts).
 */
import Type, { type Static } from 'typebox';
import {
  CURSOR_INVALID,
  CURSOR_MAX_LENGTH,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  MAX_PAGE_SIZE,
} from '../services/projects/cursor.ts';
import { DESCRIPTION_MAX, LEGACY_COLOR_MAX, NAME_MAX, PROJECT_COLORS } from '../services/projects/fields.ts';
import {
  EXAMPLE_PROJECT_ID,
  LEGACY_PROJECT_EXAMPLE,
  PROJECT_CREATE_EXAMPLE,
  PROJECT_UPDATE_EXAMPLE,
} from './examples.ts';

const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const NullableString = Type.Union([Type.Null(), Type.String()]);

export const Project = Type.Object(
  {
    id: Type.String(),
    name: Type.String({ maxLength: NAME_MAX }),
    description: Type.Union([Type.String({ maxLength: DESCRIPTION_MAX }), Type.Null()]),
    color: Type.Union([Type.String(), Type.Null()], { description: `One of ${PROJECT_COLORS.join(', ')}.` }),
    portfolioId: Type.Union([Type.String(), Type.Null()]),
    teamId: Type.Union([Type.String(), Type.Null()], { description: 'null for a personal project.' }),
    private: Type.Boolean(),
    confidential: Type.Boolean({ description: 'Settable only on create.' }),
    contributorIds: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'Who may log time: null = every active team member, [] = nobody, else those user ids.',
    }),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    createdAt: Instant,
    updatedAt: Instant,
    usedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Start of the most recent activity logged to the project.',
    }),
    createdBy: Type.String(),
    updatedBy: Type.String(),
  },
  { description: 'A project. Timestamps are ISO 8601 UTC.' },
);
export type Project = Static<typeof Project>;

export const ProjectResponse = Type.Object({ success: Type.Literal(true), project: Project });
export const ProjectListResponse = Type.Object({
  success: Type.Literal(true),
  projects: Type.Array(Project),
  nextCursor: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'Only when `limit` or `cursor` was given: the `cursor` of the next page, or null on the last page.',
    }),
  ),
});

export const ProjectIdParams = Type.Object({ id: Type.String({ examples: [EXAMPLE_PROJECT_ID] }) });

export const ProjectListQuery = Type.Object({
  sort: Type.Optional(
    Type.Unsafe<'createdAt' | 'updatedAt' | 'usedAt'>({
      type: 'string',
      enum: ['createdAt', 'updatedAt', 'usedAt'],
      default: 'createdAt',
      description: 'Descending sort key; null values last, ties by id.',
    }),
  ),
  includeArchived: Type.Optional(Type.Boolean({ default: false, description: '`true` includes archived projects.' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `Page size. With \`limit\` or \`cursor\` the answer is one page (default ${DEFAULT_PAGE_SIZE} projects when only \`cursor\` is given) and carries \`nextCursor\`; with neither, every project and no \`nextCursor\`.`,
      'x-error': `limit must be an integer between 1 and ${MAX_PAGE_SIZE}`,
      examples: [50],
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: CURSOR_MAX_LENGTH,
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      description:
        'The `nextCursor` of the previous page, with the same `sort` and `includeArchived` (400 otherwise). Opaque.',
      'x-error': CURSOR_INVALID,
      examples: [
        encodeCursor({
          sort: 'createdAt',
          includeArchived: false,
          isNull: false,
          value: Date.parse('2026-11-20T09:00:00Z'),
          id: EXAMPLE_PROJECT_ID,
        }),
      ],
    }),
  ),
});

// The string branch comes first so that an over-long text is reported by its length.
const Description = Type.Union([Type.String({ maxLength: DESCRIPTION_MAX }), Type.Null()]);
const INVALID_COLOR = 'Invalid color value';
const ColorField = Type.Union([Type.Enum(PROJECT_COLORS), Type.Null()], {
  description: `One of ${PROJECT_COLORS.join(', ')}; else 400 Invalid color value.`,
  'x-error': INVALID_COLOR,
});
// A pattern rather than an enum: Ajv checks an enum before the length, a pattern after it.
const LegacyColorField = Type.Union(
  [Type.String({ maxLength: LEGACY_COLOR_MAX, pattern: `^(${PROJECT_COLORS.join('|')})?$` }), Type.Null()],
  {
    description: `One of ${PROJECT_COLORS.join(', ')}; "" or null clears; a string over 100 characters is 400 naming the field, any other value 400 Invalid color value.`,
    'x-error': { type: INVALID_COLOR, pattern: INVALID_COLOR },
  },
);
const ContributorsField = Type.Union([Type.Array(Type.String()), Type.Null()], {
  description:
    "null or an array of user ids, handles or e-mail addresses, each an active member of the project's team.",
  'x-error': 'contributorIds must be null or an array of user ids, handles, or email addresses',
});
const TeamField = Type.Union([Type.Null(), Type.String()], {
  description: 'Team id or exact trimmed, case-sensitive name; null or "" for a personal project.',
});
const PortfolioField = Type.Union([Type.Null(), Type.String()], {
  description: 'Portfolio id or exact trimmed, case-sensitive name; null or "" for none.',
});

export const ProjectCreateBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({ maxLength: NAME_MAX, description: 'Omitted or blank: `New Project <local date>`.' }),
    ),
    description: Type.Optional(Description),
    color: Type.Optional(ColorField),
    team: Type.Optional(TeamField),
    portfolio: Type.Optional(PortfolioField),
    private: Type.Optional(Type.Boolean()),
    confidential: Type.Optional(Type.Boolean({ description: 'Settable only on create.' })),
    contributorIds: Type.Optional(ContributorsField),
  },
  { additionalProperties: true, examples: [PROJECT_CREATE_EXAMPLE] },
);
export type ProjectCreateBody = Static<typeof ProjectCreateBody>;

export const ProjectUpdateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: NAME_MAX })),
    description: Type.Optional(Description),
    color: Type.Optional(ColorField),
    team: Type.Optional(TeamField),
    portfolio: Type.Optional(PortfolioField),
    private: Type.Optional(Type.Boolean()),
    contributorIds: Type.Optional(ContributorsField),
    archived: Type.Optional(Type.Boolean({ description: '`true` archives, `false` unarchives.' })),
    confidential: Type.Optional(
      Type.Never({
        description: 'Refused: confidential cannot be changed through the API.',
        'x-error': 'confidential cannot be changed through the API',
      }),
    ),
  },
  { additionalProperties: true, examples: [PROJECT_UPDATE_EXAMPLE] },
);
export type ProjectUpdateBody = Static<typeof ProjectUpdateBody>;

const LEGACY_OPERATIONS = ['list', 'create', 'update', 'delete', 'archive'] as const;
type LegacyOperation = (typeof LEGACY_OPERATIONS)[number];

export const LegacyProjectBody = Type.Object(
  {
    operation: Type.Optional(
      Type.Unsafe<LegacyOperation>({
        type: 'string',
        enum: [...LEGACY_OPERATIONS],
        description: 'Omitted means list.',
      }),
    ),
    id: Type.Optional(Type.String({ description: 'Required for update, delete and archive.' })),
    name: Type.Optional(Type.Union([Type.String({ maxLength: NAME_MAX }), Type.Null()])),
    description: Type.Optional(Description),
    color: Type.Optional(LegacyColorField),
    team: Type.Optional(NullableString),
    portfolio: Type.Optional(NullableString),
    private: Type.Optional(Type.Boolean()),
    confidential: Type.Optional(Type.Boolean()),
    archived: Type.Optional(
      Type.Boolean({
        description: 'list: true includes archived projects. archive: defaults to true; false unarchives.',
      }),
    ),
  },
  { additionalProperties: true, examples: [LEGACY_PROJECT_EXAMPLE] },
);
export type LegacyProjectBody = Static<typeof LegacyProjectBody>;

export const LegacyResponse = Type.Union([
  Type.Object({ success: Type.Literal(true), projects: Type.Array(Project) }),
  Type.Object({ success: Type.Literal(true), message: Type.String(), projectId: Type.String() }),
  Type.Object({ success: Type.Literal(true), message: Type.String() }),
]);
export type LegacyResponse = Static<typeof LegacyResponse>;
