type CreateElement = (type: unknown, props: null, child: string) => unknown;

/**
 * A CommonMark renderer (react-markdown, the one the web UI uses): markdown -> HTML. Loaded by a
 * name TypeScript does not follow: React's types, once in the server's programme, declare stubs of
 * the DOM's HTMLElement that break the browser tests' types.
 */
export async function commonMark(): Promise<(markdown: string) => string> {
  const load = (name: string): Promise<unknown> => import(name);
  const [react, server, markdown] = await Promise.all([load('react'), load('react-dom/server'), load('react-markdown')]) as [
    { createElement: CreateElement }, { renderToStaticMarkup: (element: unknown) => string }, { default: unknown },
  ];
  return (text) => server.renderToStaticMarkup(react.createElement(markdown.default, null, text));
}
