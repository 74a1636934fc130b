/**
 * Looks at an upload's raw bytes without parsing it: detection runs inside the request on bodies
 * of up to 64 MiB, so it searches for marker keys instead. A raw `"key":` can only be a key:
 * quotes inside strings are escaped.
 */
export interface Sniffed {
  /** The document's first significant character is `[`. */
  readonly array: boolean;
  /** `"key"` followed by a colon, anywhere. */
  hasKey(key: string): boolean;
  /** `"key": "prefix...`: a string value that starts with `prefix`. */
  keyValueStartsWith(key: string, prefix: string): boolean;
  includes(text: string): boolean;
  /** `[]` and nothing more. */
  isEmptyArray(): boolean;
  /** The name of an XML document's root element (with its prefix), if one is found near its start. */
  rootElement(): string | undefined;
}

/** How much of an XML or tag-value upload is read to find its root element or version line. */
export const HEAD_BYTES = 256 * 1024;

export function sniff(body: Buffer): Sniffed {
  const start = firstSignificantByte(body);
  return {
    array: body[start] === 0x5b /* [ */,
    hasKey: (key) => valueAfterKey(body, key) !== -1,
    keyValueStartsWith: (key, prefix) => keyValueStartsWith(body, key, prefix),
    includes: (text) => body.includes(text),
    isEmptyArray: () => isEmptyArray(body, start),
    rootElement: () => rootElement(body.toString('utf8', start, start + HEAD_BYTES)),
  };
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

export function firstSignificantByte(body: Buffer): number {
  let i = body[0] === UTF8_BOM[0] && body[1] === UTF8_BOM[1] && body[2] === UTF8_BOM[2] ? 3 : 0;
  while (i < body.length && isWhitespace(body[i] ?? 0)) i++;
  return i;
}

export function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function keyValueStartsWith(json: Buffer, key: string, prefix: string): boolean {
  const needle = `"${prefix}`;
  for (let from = 0; ; ) {
    const at = valueAfterKey(json, key, from);
    if (at === -1) return false;
    if (json.toString('latin1', at, at + needle.length) === needle) return true;
    from = at;
  }
}

/** Offset of the first non-blank byte after `"key":`, or -1. */
function valueAfterKey(json: Buffer, key: string, from = 0): number {
  const quoted = `"${key}"`;
  for (let at = json.indexOf(quoted, from, 'latin1'); at !== -1; at = json.indexOf(quoted, at + 1, 'latin1')) {
    let i = at + quoted.length;
    while (i < json.length && isWhitespace(json[i] ?? 0)) i++;
    if (json[i] !== 0x3a /* : */) continue;
    i++;
    while (i < json.length && isWhitespace(json[i] ?? 0)) i++;
    return i;
  }
  return -1;
}

function isEmptyArray(json: Buffer, open: number): boolean {
  let i = open + 1;
  while (i < json.length && isWhitespace(json[i] ?? 0)) i++;
  return json[i] === 0x5d /* ] */;
}

const ELEMENT_NAME = /^<([A-Za-z_][\w.:-]*)/;

/**
 * The root element's name, after the XML declaration, comments, processing instructions and a
 * DOCTYPE (which the parser refuses later, with a reason).
 */
function rootElement(xml: string): string | undefined {
  let i = 0;
  for (;;) {
    i = xml.indexOf('<', i);
    if (i === -1) return undefined;
    if (xml.startsWith('<?', i)) i = after(xml, '?>', i);
    else if (xml.startsWith('<!--', i)) i = after(xml, '-->', i);
    else if (xml.startsWith('<!', i)) i = afterDoctype(xml, i);
    else return ELEMENT_NAME.exec(xml.slice(i, i + 256))?.[1];
    if (i === -1) return undefined;
  }
}

function after(xml: string, terminator: string, from: number): number {
  const end = xml.indexOf(terminator, from);
  return end === -1 ? -1 : end + terminator.length;
}

const DOCTYPE_SUBSET_END = /\]\s*>/;

function afterDoctype(xml: string, from: number): number {
  const close = xml.indexOf('>', from);
  const subset = xml.indexOf('[', from);
  if (subset !== -1 && (close === -1 || subset < close)) {
    const end = DOCTYPE_SUBSET_END.exec(xml.slice(subset));
    return end ? subset + end.index + end[0].length : -1;
  }
  return close === -1 ? -1 : close + 1;
}
