import { describeType, isRecord, type JsonRecord } from './access.js';
import { ParseError } from './types.js';

const BOM = '\uFEFF';

/** UTF-8 text of the upload, without a byte order mark. */
export function decodeText(body: Buffer): string {
  const text = body.toString('utf8');
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/** JSON.parse with an error that says where the JSON breaks, as line and column. */
export function parseJson(body: Buffer, what: string): unknown {
  const source = decodeText(body);
  try {
    return JSON.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ParseError(`The ${what} is not valid JSON: ${shorten(reason)}${locate(source, reason)}`);
  }
}

/** parseJson for formats whose documents are objects. */
export function parseJsonObject(body: Buffer, what: string): JsonRecord {
  const doc = parseJson(body, what);
  if (!isRecord(doc)) throw new ParseError(`The ${what} must be a JSON object, not ${describeType(doc)}`);
  return doc;
}

function locate(source: string, reason: string): string {
  const stated = /position (\d+)/.exec(reason);
  const position = stated ? Number(stated[1]) : errorOffset(source);
  if (position === undefined) return '';
  let lineNo = 1;
  let lineStart = 0;
  for (let i = source.indexOf('\n'); i !== -1 && i < position; i = source.indexOf('\n', i + 1)) {
    lineNo++;
    lineStart = i + 1;
  }
  return ` (line ${lineNo}, column ${position - lineStart + 1})`;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// eslint-disable-next-line no-control-regex -- raw control characters are exactly what JSON strings may not hold
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

const SPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);

class Stop {
  constructor(readonly at: number) {}
}

/**
 * Where JSON that JSON.parse refused goes wrong. V8 only sometimes says ("Unexpected token '}',
 * ... is not valid JSON" has no position), and a line number matters in a 50 MB file.
 * Runs only after a failure; gives up (undefined) on nesting too deep for its recursion.
 */
function errorOffset(source: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new Stop(i);
  };
  const skipSpace = (): void => {
    while (SPACE.has(source.charCodeAt(i))) i++;
  };
  const token = (pattern: RegExp): void => {
    pattern.lastIndex = i;
    if (!pattern.test(source)) fail();
    i = pattern.lastIndex;
  };
  const value = (): void => {
    skipSpace();
    const c = source[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      skipSpace();
      if (source[i] === close) return void i++;
      for (;;) {
        if (close === '}') {
          skipSpace();
          if (source[i] !== '"') fail();
          token(STRING);
          skipSpace();
          if (source[i] !== ':') fail();
          i++;
        }
        value();
        skipSpace();
        if (source[i] === close) return void i++;
        if (source[i] !== ',') fail();
        i++;
      }
    }
    if (c === '"') return token(STRING);
    for (const literal of ['true', 'false', 'null']) {
      if (source.startsWith(literal, i)) return void (i += literal.length);
    }
    token(NUMBER);
  };
  try {
    value();
    skipSpace();
    return i < source.length ? i : undefined;
  } catch (error) {
    return error instanceof Stop ? error.at : undefined;
  }
}

/** V8 quotes the source around the fault ("Unexpected token '}', "...": [}" is not valid JSON"). */
function shorten(reason: string): string {
  const quoted = /^(Unexpected token '.+?'), .* is not valid JSON$/s.exec(reason);
  const plain = quoted?.[1] ?? reason;
  return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain;
}
