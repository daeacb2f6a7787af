/**
 * Validators for chat-platform payloads, encoding the platforms' published limits, so every
 * Slack or Discord message rendered in the suite is checked against them.
 *
 * Slack Block Kit: ≤ 50 blocks per message; header text is plain_text of 1–150 characters;
 * section text 1–3000 characters, section fields ≤ 10 of ≤ 2000 each; context ≤ 10 elements;
 * divider has no content; block_id ≤ 255. `emoji` belongs to plain_text, `verbatim` to mrkdwn.
 * Daybook's own rule (docs/api.md, "GET / POST /message"): `&`, `<` and `>` are escaped in mrkdwn.
 *
 * Discord embed: title ≤ 256, description ≤ 4096, ≤ 25 fields with a non-empty name ≤ 256 and
 * a non-empty value ≤ 1024, footer text ≤ 2048, author name ≤ 256, and title, description,
 * field names and values, footer text and author name together ≤ 6000; color an integer
 * 0–0xFFFFFF; timestamp ISO 8601.
 */
import assert from 'node:assert/strict';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownKeys(value: Json, allowed: string[], where: string, problems: string[]): void {
  for (const key of Object.keys(value))
    if (!allowed.includes(key)) problems.push(`${where}: unexpected property "${key}"`);
}

function checkLength(text: unknown, min: number, max: number, where: string, problems: string[]): void {
  if (typeof text !== 'string') {
    problems.push(`${where}: must be a string`);
  } else if (text.length < min || text.length > max) {
    problems.push(`${where}: length ${text.length} outside ${min}–${max}`);
  }
}

function checkSlackText(value: unknown, max: number, where: string, problems: string[], only?: 'plain_text'): void {
  if (!isObject(value)) {
    problems.push(`${where}: must be a text object`);
    return;
  }
  if (value.type !== 'plain_text' && value.type !== 'mrkdwn')
    problems.push(`${where}.type: must be plain_text or mrkdwn`);
  if (only && value.type !== only) problems.push(`${where}.type: must be ${only}`);
  unknownKeys(value, ['type', 'text', value.type === 'plain_text' ? 'emoji' : 'verbatim'], where, problems);
  if ('emoji' in value && typeof value.emoji !== 'boolean') problems.push(`${where}.emoji: must be a boolean`);
  if ('verbatim' in value && typeof value.verbatim !== 'boolean') problems.push(`${where}.verbatim: must be a boolean`);
  checkLength(value.text, 1, max, `${where}.text`, problems);
  if (value.type === 'mrkdwn' && typeof value.text === 'string' && /[<>]|&(?!amp;|lt;|gt;)/.test(value.text)) {
    problems.push(`${where}.text: unescaped &, < or > in mrkdwn`);
  }
}

export function slackBlockProblems(blocks: unknown): string[] {
  const problems: string[] = [];
  if (!Array.isArray(blocks)) return ['blocks: must be an array'];
  if (blocks.length < 1 || blocks.length > 50) problems.push(`blocks: ${blocks.length} blocks, allowed 1–50`);
  blocks.forEach((block, i) => {
    const where = `blocks[${i}]`;
    if (!isObject(block)) {
      problems.push(`${where}: must be an object`);
      return;
    }
    if ('block_id' in block) checkLength(block.block_id, 1, 255, `${where}.block_id`, problems);
    switch (block.type) {
      case 'header':
        unknownKeys(block, ['type', 'text', 'block_id'], where, problems);
        checkSlackText(block.text, 150, `${where}.text`, problems, 'plain_text');
        break;
      case 'section':
        unknownKeys(block, ['type', 'text', 'fields', 'block_id'], where, problems);
        if (block.text === undefined && block.fields === undefined) problems.push(`${where}: needs text or fields`);
        if (block.text !== undefined) checkSlackText(block.text, 3000, `${where}.text`, problems);
        if (block.fields !== undefined) {
          if (!Array.isArray(block.fields) || block.fields.length < 1 || block.fields.length > 10) {
            problems.push(`${where}.fields: must hold 1–10 text objects`);
          } else {
            for (const [j, field] of block.fields.entries())
              checkSlackText(field, 2000, `${where}.fields[${j}]`, problems);
          }
        }
        break;
      case 'divider':
        unknownKeys(block, ['type', 'block_id'], where, problems);
        break;
      case 'context':
        unknownKeys(block, ['type', 'elements', 'block_id'], where, problems);
        if (!Array.isArray(block.elements) || block.elements.length < 1 || block.elements.length > 10) {
          problems.push(`${where}.elements: must hold 1–10 elements`);
        } else {
          for (const [j, element] of block.elements.entries())
            checkSlackText(element, 3000, `${where}.elements[${j}]`, problems);
        }
        break;
      default:
        problems.push(`${where}.type: unsupported block type ${JSON.stringify(block.type)}`);
    }
  });
  return problems;
}

export function discordEmbedProblems(embed: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(embed)) return ['embed: must be an object'];
  unknownKeys(
    embed,
    [
      'title',
      'type',
      'description',
      'url',
      'timestamp',
      'color',
      'footer',
      'image',
      'thumbnail',
      'video',
      'provider',
      'author',
      'fields',
    ],
    'embed',
    problems,
  );
  let total = 0;
  const text = (value: unknown, min: number, max: number, where: string) => {
    checkLength(value, min, max, where, problems);
    if (typeof value === 'string') total += value.length;
  };
  if (embed.title !== undefined) text(embed.title, 1, 256, 'embed.title');
  if (embed.description !== undefined) text(embed.description, 1, 4096, 'embed.description');
  if (
    embed.color !== undefined &&
    !(Number.isInteger(embed.color) && (embed.color as number) >= 0 && (embed.color as number) <= 0xffffff)
  ) {
    problems.push('embed.color: must be an integer 0–0xFFFFFF');
  }
  if (
    embed.timestamp !== undefined &&
    (typeof embed.timestamp !== 'string' || Number.isNaN(Date.parse(embed.timestamp)))
  ) {
    problems.push('embed.timestamp: must be an ISO 8601 timestamp');
  }
  if (embed.fields !== undefined) {
    if (!Array.isArray(embed.fields) || embed.fields.length > 25) {
      problems.push('embed.fields: must be an array of at most 25 fields');
    } else {
      embed.fields.forEach((field, i) => {
        const where = `embed.fields[${i}]`;
        if (!isObject(field)) {
          problems.push(`${where}: must be an object`);
          return;
        }
        unknownKeys(field, ['name', 'value', 'inline'], where, problems);
        text(field.name, 1, 256, `${where}.name`);
        text(field.value, 1, 1024, `${where}.value`);
        if (field.inline !== undefined && typeof field.inline !== 'boolean')
          problems.push(`${where}.inline: must be a boolean`);
      });
    }
  }
  if (embed.footer !== undefined) {
    if (!isObject(embed.footer)) problems.push('embed.footer: must be an object');
    else {
      unknownKeys(embed.footer, ['text', 'icon_url', 'proxy_icon_url'], 'embed.footer', problems);
      text(embed.footer.text, 1, 2048, 'embed.footer.text');
    }
  }
  if (embed.author !== undefined) {
    if (!isObject(embed.author)) problems.push('embed.author: must be an object');
    else text(embed.author.name, 1, 256, 'embed.author.name');
  }
  if (total > 6000) problems.push(`embed: ${total} characters of text in all, allowed 6000`);
  return problems;
}

export function assertValidSlackBlocks(blocks: unknown): void {
  assert.deepEqual(slackBlockProblems(blocks), [], 'Slack blocks break a published limit');
}

export function assertValidDiscordEmbed(embed: unknown): void {
  assert.deepEqual(discordEmbedProblems(embed), [], 'Discord embed breaks a published limit');
}
