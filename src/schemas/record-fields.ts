/** Fields the recording routes share (activities, tasks, day comments): ids, instants, dates. */
import Type from 'typebox';

/** The dataset's id syntax (src/dataset/dataset.schema.json, `$defs.id`). */
const ID_PATTERN = '^[A-Za-z0-9_.:-]+$';
const ID_RULE = 'must be 1 to 128 letters, digits or _ . : -';

export const recordId = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: ID_PATTERN,
    description,
    'x-error': `{field} ${ID_RULE}`,
  });

export const nullableRecordId = (description: string) =>
  Type.Union([recordId(description), Type.Null()], {
    description,
    'x-error': `{field} must be null or an id that ${ID_RULE}`,
  });

/** An ISO 8601 instant with seconds optional, fraction optional, and an offset or `Z`. */
const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';
export const START_RULE = 'must be an ISO 8601 instant with an offset or Z, or Unix milliseconds';

/**
 * The last instant the ISO 8601 form can write (9999-12-31T23:59:59.999Z), so both forms take the
 * same range. Up to Date's own limit (8,640,000,000,000,000), an instant's local date in a zone
 * east of UTC lies past that limit, and computing it threw (a 500 the OpenAPI fuzz found).
 */
const LAST_INSTANT_MS = 253_402_300_799_999;

/** An instant as the write routes take it; services/recording/instants.ts reads it. */
export const instant = (description: string) =>
  Type.Union([Type.String({ pattern: INSTANT_PATTERN }), Type.Integer({ minimum: 0, maximum: LAST_INSTANT_MS })], {
    description,
    'x-error': `{field} ${START_RULE}`,
  });

/** A local date, checked as a real day of the calendar (ajv-formats' `date`). */
export const localDate = (description: string) =>
  Type.String({ format: 'date', description, 'x-error': '{field} must be a date in the form YYYY-MM-DD' });

/** A title or headline: 1 to 300 characters, not blank (the blank rule: services/recording). */
export const TITLE_RULE = 'must be 1 to 300 characters, not blank';
export const title = (description: string) =>
  Type.String({ minLength: 1, maxLength: 300, description, 'x-error': `{field} ${TITLE_RULE}` });

const DESCRIPTION_RULE = 'must be null or at most 5000 characters';
export const nullableDescription = () =>
  Type.Union([Type.String({ maxLength: 5000 }), Type.Null()], {
    description: 'At most 5,000 characters, or null.',
    'x-error': `{field} ${DESCRIPTION_RULE}`,
  });
