/**
 * One rule for every name a person gives (organizations, repositories, teams, API keys): it must
 * show something, and it must not hide or reorder what it shows. A name of only zero-width or blank
 * characters looks like nothing on screen; bidirectional controls make "abc" display as "cba" and
 * let one name pass for another; so does an invisible character inside a name ("ac\u200Bme" beside
 * "acme"); a lone surrogate is not text at all (PostgreSQL refuses it).
 */
export const DISPLAY_NAME_FORMAT = 'display-name';
export const DISPLAY_NAME_RULE = 'must show at least one visible character and hold no invisible characters (such as a zero-width space), bidirectional control characters or lone surrogates';

const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
// With the u flag a lone surrogate is a code point of its own; a well-formed pair is one astral character.
export const LONE_SURROGATE = /\p{Cs}/u;
// Blank or drawn as nothing: spaces, default-ignorable (zero-width, fillers, tags, variation selectors),
// controls, format characters, unassigned code points, marks with no base, and the braille blank.
const VISIBLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Cs}\p{Cn}\p{M}\u2800]/u;

/** Characters Unicode says to draw as nothing when they have no job where they stand. */
export const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
/**
 * The invisible characters that do have a job in a name, because they change what is drawn: joiners
 * and variation selectors inside an emoji sequence (👩🏽‍💻, ❤️, a subdivision flag's tags), and
 * joiners between letters of a script that shapes by them (Persian, Devanagari…). Not between Latin,
 * Greek or Cyrillic letters, where they change nothing and "ac\u200Dme" would pass for "acme".
 */
const SHAPING_LETTER = String.raw`(?![\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{L}`;
const DRAWN = new RegExp([
  String.raw`(?<=\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}]?\uFE0F?)\u200D(?=\p{Extended_Pictographic})`,
  String.raw`(?<=\p{Extended_Pictographic})[\uFE0E\uFE0F]|(?<=[0-9#*])\uFE0F(?=\u20E3)`,
  String.raw`(?<=\u{1F3F4}[\u{E0020}-\u{E007E}]*)[\u{E0020}-\u{E007F}]`,
  String.raw`(?<=${SHAPING_LETTER}\p{M}*)[\u200C\u200D](?=${SHAPING_LETTER})`,
].join('|'), 'gu');

/** Why a name is refused, or null when it is fine. */
export function displayNameProblem(name: string): string | null {
  if (LONE_SURROGATE.test(name)) return 'holds a lone surrogate';
  if (BIDI_CONTROLS.test(name)) return 'holds a bidirectional control character';
  if (!VISIBLE.test(name)) return 'has no visible character';
  const invisible = INVISIBLE.exec(name.replace(DRAWN, ''));
  if (invisible) return `holds an invisible character (${codePoint(invisible[0])})`;
  return null;
}

/** U+200B, as a person can look it up. */
export function codePoint(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

export function isDisplayName(name: string): boolean {
  return displayNameProblem(name) === null;
}
