import { Type } from 'typebox';
import { DISPLAY_NAME_FORMAT } from '../names.js';

/**
 * Org, repo and team names are unique ignoring case. The key is computed here rather than with SQL
 * lower(), which on SQLite folds ASCII only, so both dialects store and compare the same key.
 */
export function nameKey(name: string): string {
  return name.toLowerCase();
}

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 1000;

// No leading or trailing space, and no line breaks: names are shown on one line and compared by key.
export const NameField = (unique: string) => Type.String({
  minLength: 1,
  maxLength: NAME_MAX,
  pattern: '^\\S(.*\\S)?$',
  format: DISPLAY_NAME_FORMAT,
  description: `1-${NAME_MAX} characters without leading or trailing spaces, at least one of them visible, no invisible characters or bidirectional controls; unique ${unique}, ignoring case.`,
});

export const DescriptionField = Type.String({ maxLength: DESCRIPTION_MAX, description: `Up to ${DESCRIPTION_MAX} characters.` });
