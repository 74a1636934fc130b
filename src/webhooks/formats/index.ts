import type { WebhookFormat } from './types.js';
import { json } from './json.js';
import { slack } from './slack.js';
import { teams } from './teams.js';

/** Every webhook format; nothing else keeps a list of them. */
const FORMATS: readonly WebhookFormat[] = [json, slack, teams];

export const FORMAT_NAMES = FORMATS.map((f) => f.name);

export function formatNamed(name: string): WebhookFormat {
  return FORMATS.find((f) => f.name === name) ?? json;
}
