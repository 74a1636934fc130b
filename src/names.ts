/**
 * One rule for every name a person gives (organizations, repositories, teams, API keys): it must
 * show something, and it must not hide or reorder what it shows. A name of only zero-width or blank
 * characters looks like nothing on screen; bidirectional controls make "abc" display as "cba" and
 * let one name pass for another; a lone surrogate is not text at all (PostgreSQL refuses it).
 */
export const DISPLAY_NAME_FORMAT = 'display-name';
export const DISPLAY_NAME_RULE = 'must show at least one visible character and hold no bidirectional control characters or lone surrogates';

const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
// With the u flag a lone surrogate is a code point of its own; a well-formed pair is one astral character.
export const LONE_SURROGATE = /\p{Cs}/u;
// Blank or drawn as nothing: spaces, default-ignorable (zero-width, fillers, tags, variation selectors),
// controls, format characters, unassigned code points, marks with no base, and the braille blank.
const VISIBLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Cs}\p{Cn}\p{M}\u2800]/u;

/** Why a name is refused, or null when it is fine. */
export function displayNameProblem(name: string): string | null {
  if (LONE_SURROGATE.test(name)) return 'holds a lone surrogate';
  if (BIDI_CONTROLS.test(name)) return 'holds a bidirectional control character';
  if (!VISIBLE.test(name)) return 'has no visible character';
  return null;
}

export function isDisplayName(name: string): boolean {
  return displayNameProblem(name) === null;
}
