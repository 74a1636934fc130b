/**
 * Splits a JSON document arriving in pieces into the texts of its top-level items, without holding
 * more than the item being read: each element of a top-level array, or each member of a top-level
 * object, where one member may be an array whose elements are split in turn (the KEV catalogue's
 * `vulnerabilities`). Pure. Only the structure around the items is checked here; each item's text is
 * for JSON.parse, which checks the rest.
 */
export type JsonPiece =
  /** A top-level value that is neither an array nor an object. */
  | { kind: 'value'; text: string }
  /** An element of the top-level array, or of the split member `member`. */
  | { kind: 'item'; member?: string; index: number; text: string }
  /** A member of the top-level object, whole. */
  | { kind: 'member'; key: string; text: string };

export class JsonSplitError extends Error {
  override readonly name = 'JsonSplitError';
}

interface Container {
  kind: 'array' | 'object';
  expect: 'value-or-end' | 'value' | 'comma-or-end' | 'key-or-end' | 'key' | 'colon';
  index: number;
  /** The member being read (objects), or the member this array is (a split member). */
  key?: string;
}

type Target = 'value' | 'item' | 'member' | 'key';

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

export class JsonSplitter {
  private readonly stack: Container[] = [];
  /** What the document is, once its first character says. */
  root: 'array' | 'object' | 'value' | null = null;
  private done = false;
  private offset = 0;
  /** The item being read: its text so far, where it stands, and what it becomes. */
  private capture: { parts: string[]; target: Target; depth: number; inString: boolean; escaped: boolean; scalar: boolean } | null = null;

  /** The keys of the top-level object's members so far. */
  private readonly keys = new Set<string>();

  /**
   * `split(key, earlier)` says whether a member of the top-level object whose value is an array is
   * split into its elements, knowing the keys of the members before it.
   */
  constructor(private readonly split: (key: string, earlier: ReadonlySet<string>) => boolean = () => false) {}

  push(chunk: string): JsonPiece[] {
    const pieces: JsonPiece[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.capture) {
        i = this.read(chunk, i, pieces);
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (isSpace(c)) {
        i++;
        continue;
      }
      const top = this.stack.at(-1);
      if (!top) {
        if (this.done) this.fail(`more follows the JSON value at character ${this.offset + i}`);
        this.root = c === OPEN_ARRAY ? 'array' : c === OPEN_OBJECT ? 'object' : 'value';
        if (c === OPEN_ARRAY) this.stack.push({ kind: 'array', expect: 'value-or-end', index: 0 });
        else if (c === OPEN_OBJECT) this.stack.push({ kind: 'object', expect: 'key-or-end', index: 0 });
        else {
          this.begin(c, 'value', i);
          continue;
        }
        i++;
        continue;
      }
      if ((top.expect === 'value-or-end' && c === CLOSE_ARRAY) || (top.expect === 'key-or-end' && c === CLOSE_OBJECT)) {
        this.close();
        i++;
        continue;
      }
      switch (top.expect) {
        case 'value-or-end':
        case 'value':
          if (top.kind === 'object' && this.stack.length === 1 && c === OPEN_ARRAY && this.split(top.key!, this.keys)) {
            top.expect = 'comma-or-end';
            this.stack.push({ kind: 'array', expect: 'value-or-end', index: 0, key: top.key });
            i++;
          } else {
            this.begin(c, top.kind === 'array' ? 'item' : 'member', i);
          }
          break;
        case 'comma-or-end':
          if (c === COMMA) top.expect = top.kind === 'array' ? 'value' : 'key';
          else if (c === (top.kind === 'array' ? CLOSE_ARRAY : CLOSE_OBJECT)) this.close();
          else this.unexpected(chunk, i);
          i++;
          break;
        case 'key-or-end':
        case 'key':
          if (c !== QUOTE) this.unexpected(chunk, i);
          this.begin(c, 'key', i);
          break;
        case 'colon':
          if (c !== COLON) this.unexpected(chunk, i);
          top.expect = 'value';
          i++;
          break;
      }
    }
    this.offset += chunk.length;
    return pieces;
  }

  /** The document is complete: what a value standing alone still held, or why it is not complete. */
  end(): JsonPiece[] {
    const pieces: JsonPiece[] = [];
    if (this.capture?.scalar && this.stack.length === 0) this.finish(pieces);
    if (this.capture || this.stack.length > 0) this.fail('it ends before the JSON is complete');
    if (!this.done) this.fail('it holds no JSON value');
    return pieces;
  }

  private begin(c: number, target: Target, at: number): void {
    const container = c === OPEN_ARRAY || c === OPEN_OBJECT;
    if (!container && (c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === COMMA || c === COLON)) this.fail(`unexpected "${String.fromCharCode(c)}" at character ${this.offset + at}`);
    this.capture = { parts: [], target, depth: 0, inString: false, escaped: false, scalar: !container && c !== QUOTE };
  }

  /** Reads the item from `start` to its end or the chunk's; returns where it stopped. */
  private read(chunk: string, start: number, pieces: JsonPiece[]): number {
    const capture = this.capture!;
    let i = start;
    for (; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (capture.inString) {
        if (capture.escaped) capture.escaped = false;
        else if (c === BACKSLASH) capture.escaped = true;
        else if (c === QUOTE) {
          capture.inString = false;
          if (capture.depth === 0) {
            capture.parts.push(chunk.slice(start, i + 1));
            this.finish(pieces);
            return i + 1;
          }
        }
        continue;
      }
      if (capture.scalar) {
        if (isSpace(c) || c === COMMA || c === CLOSE_ARRAY || c === CLOSE_OBJECT || c === COLON) {
          capture.parts.push(chunk.slice(start, i));
          this.finish(pieces);
          return i;
        }
        continue;
      }
      if (c === QUOTE) capture.inString = true;
      else if (c === OPEN_ARRAY || c === OPEN_OBJECT) capture.depth++;
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        if (--capture.depth === 0) {
          capture.parts.push(chunk.slice(start, i + 1));
          this.finish(pieces);
          return i + 1;
        }
      }
    }
    capture.parts.push(chunk.slice(start));
    return i;
  }

  private finish(pieces: JsonPiece[]): void {
    const { parts, target } = this.capture!;
    this.capture = null;
    const text = parts.join('');
    const top = this.stack.at(-1);
    if (!top) {
      pieces.push({ kind: 'value', text });
      this.done = true;
      return;
    }
    if (target === 'key') {
      let key: unknown;
      try {
        key = JSON.parse(text);
      } catch (error) {
        this.fail((error as Error).message);
      }
      top.key = key as string;
      top.expect = 'colon';
      if (this.stack.length === 1) this.keys.add(top.key);
      return;
    }
    top.expect = 'comma-or-end';
    if (target === 'item') pieces.push({ kind: 'item', ...(top.key === undefined ? {} : { member: top.key }), index: top.index++, text });
    else pieces.push({ kind: 'member', key: top.key!, text });
  }

  private close(): void {
    this.stack.pop();
    if (this.stack.length === 0) this.done = true;
  }

  private unexpected(chunk: string, i: number): never {
    this.fail(`unexpected "${chunk[i]}" at character ${this.offset + i}`);
  }

  private fail(reason: string): never {
    throw new JsonSplitError(reason);
  }
}
