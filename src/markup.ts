/**
 * Plain text (a finding's message, rule id, path or component name, as the scanned code wrote it)
 * made to show as itself in each markup we write, so that `[Open Scanyard](https://evil.example)`
 * reads as that text, not as a link of ours. One function per markup; our own markup goes around
 * what they return.
 */

/** Slack mrkdwn: &, < and > are its only control characters (links, mentions and entities start with them). */
export function slackMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Microsoft Teams, in an Adaptive Card TextBlock (a CommonMark subset: emphasis, lists, links; and
 * Teams draws images): a backslash before the characters that start or close any of them, and before
 * a list marker or heading at the start of a line. A bare URL still shows as one: it shows its own
 * address, so it passes for nothing else.
 */
export function teamsMarkdown(text: string): string {
  return text.replace(/[\\[\]()*_~`#<>!&]/g, '\\$&').replace(/^([ \t]*)([-+=]|\d+(?=[.)]))/gm, (_, indent: string, marker: string) =>
    /\d/.test(marker) ? `${indent}${marker}\\` : `${indent}\\${marker}`);
}

/** Every ASCII punctuation character, which CommonMark lets a backslash make literal. */
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;
/** A zero-width space, as an entity so the source shows where it is. */
const ZWSP = '&#8203;';

/**
 * GitHub-flavoured markdown (pull request comments, check run summaries): every ASCII punctuation
 * character escaped, so no emphasis, link, image, table, HTML or entity survives. GitHub finds
 * @mentions and #123 references after the markdown is read, where a backslash no longer shows, so a
 * zero-width space follows their @ and # (no one is notified, no issue is cross-referenced).
 */
export function githubMarkdown(text: string): string {
  return text.replace(ASCII_PUNCTUATION, (c) => (c === '@' || c === '#' ? `\\${c}${ZWSP}` : `\\${c}`));
}

/**
 * GitLab-flavoured markdown (merge request notes): every ASCII punctuation character escaped. GitLab
 * keeps a backslash-escaped character from starting a reference (@user, #1, !1, ~label, %milestone,
 * $snippet, &epic, [[_TOC_]], :emoji:), so the backslash is enough.
 */
export function gitlabMarkdown(text: string): string {
  return text.replace(ASCII_PUNCTUATION, '\\$&');
}
