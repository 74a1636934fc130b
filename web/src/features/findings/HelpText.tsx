import Markdown from 'react-markdown';

/**
 * Only absolute http(s) links survive: rule help comes from whoever wrote the uploaded report, so
 * `javascript:`, `data:` and other schemes are dropped. Raw HTML in the markdown stays text
 * (react-markdown renders elements, never an HTML string).
 */
function httpOnly(url: string): string {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:' ? url : '';
  } catch {
    return '';
  }
}

/** A rule's help as the tool wrote it (markdown), rendered inert. */
export function HelpText({ markdown }: { markdown: string }) {
  return (
    <div className="finding-help prose">
      <Markdown urlTransform={httpOnly} components={{ a: ({ href, children }) => href ? <a href={href} target="_blank" rel="noreferrer noopener">{children}</a> : <span>{children}</span> }}>
        {markdown}
      </Markdown>
    </div>
  );
}
