import { describe, expect, it } from 'vitest';
import { githubMarkdown, gitlabMarkdown, slackMrkdwn, teamsMarkdown } from '../../src/markup.js';
import { commonMark } from '../support/markdown.js';

const render = await commonMark();
const textOf = (html: string) => html.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, '&');

const HOSTILE = [
  '[Open Scanyard](https://evil.example/login) ![x](https://evil.example/x.png)',
  '**bold** _italic_ *em* ~~gone~~ `code` <img src=x onerror=alert(1)> &lt;entity&gt;',
  '# heading',
  '> quoted',
  '- listed',
  '+ listed',
  '12. numbered',
  '3) numbered',
  'line\n===',
  'line\n---',
  '[ref]: https://evil.example\n[ref]',
  '<https://evil.example/autolink>',
  'back\\slash \\[not escaped\\]',
  'path/to/file_name.ts:12 lodash-es@4.17.21 C:\\Windows',
];

describe.each([['teams', teamsMarkdown], ['github', githubMarkdown], ['gitlab', gitlabMarkdown]] as const)('%s markdown escaping', (_name, escape) => {
  it.each(HOSTILE)('shows %j as the text it is, with no markup', (text) => {
    const html = render(escape(text));
    expect(html).not.toMatch(/<(a|img|em|strong|del|code|h\d|blockquote|ul|ol|li|hr)\b/);
    const shown = textOf(html).replace(/\u200B/g, '').replace(/\s+/g, ' ').trim();
    expect(shown).toBe(text.replace(/\s+/g, ' ').trim());
  });
});

describe('markup escaping', () => {
  it('keeps GitHub from notifying a mention or cross-referencing an issue', () => {
    expect(githubMarkdown('@octocat fixed #12')).toBe('\\@&#8203;octocat fixed \\#&#8203;12');
  });

  it('escapes what Slack mrkdwn reads as links, mentions and entities, and nothing else', () => {
    expect(slackMrkdwn('<https://evil.example|Open Scanyard> <!channel> &amp; *bold*')).toBe('&lt;https://evil.example|Open Scanyard&gt; &lt;!channel&gt; &amp;amp; *bold*');
  });
});
