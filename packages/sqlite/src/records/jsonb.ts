import type { AttributeValue } from '@agentmem/core';

/**
 * Flat attributes as SQLite's JSONB (https://sqlite.org/jsonb.html), encoded
 * in JavaScript: converting them with `jsonb()` inside the INSERT would give
 * the statement a statement journal, and a separate `SELECT jsonb(value) FROM
 * json_each(?)` per batch cost ~5 µs a record (a sixth of ingest's SQL time).
 * The bytes are the ones `jsonb()` writes for the same JSON text, except for
 * strings that JSON would escape: those are stored raw (TEXTRAW), which
 * every JSON function reads as the same string.
 */
const NULL = 0;
const TRUE = 1;
const FALSE = 2;
const INT = 3;
const FLOAT = 5;
const TEXT = 7;
const TEXTJ = 8;
const TEXTRAW = 10;
const OBJECT = 12;

/** Largest header: one type byte and a 4-byte size. */
const MAX_HEADER = 5;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

let scratch = Buffer.allocUnsafe(4096);

function ensure(bytes: number): void {
  if (scratch.length >= bytes) return;
  const grown = Buffer.allocUnsafe(Math.max(bytes, scratch.length * 2));
  scratch.copy(grown);
  scratch = grown;
}

function headerLength(size: number): number {
  return size <= 11 ? 1 : size <= 0xff ? 2 : size <= 0xffff ? 3 : 5;
}

/** Writes a header for a payload of `size` bytes ending right before `payloadStart`; returns where it starts. */
function headerBefore(payloadStart: number, type: number, size: number): number {
  if (size <= 11) {
    scratch[payloadStart - 1] = (size << 4) | type;
    return payloadStart - 1;
  }
  if (size <= 0xff) {
    scratch[payloadStart - 2] = 0xc0 | type;
    scratch[payloadStart - 1] = size;
    return payloadStart - 2;
  }
  if (size <= 0xffff) {
    scratch[payloadStart - 3] = 0xd0 | type;
    scratch.writeUInt16BE(size, payloadStart - 2);
    return payloadStart - 3;
  }
  scratch[payloadStart - 5] = 0xe0 | type;
  scratch.writeUInt32BE(size, payloadStart - 4);
  return payloadStart - 5;
}

/** Longest string written a character at a time (a native write call per short string cost more). */
const SHORT_ASCII = 96;

/**
 * Writes `value` as an element of `type` (TEXT, or INT for a safe integer's digits) when it is short
 * ASCII that JSON would not escape (attribute names, kinds, hashes, ids, times: most of what is
 * written); returns the offset after it, or -1 for any other string (written over by the caller).
 */
function writeShortAscii(at: number, value: string, type = TEXT): number {
  const size = value.length;
  if (size > SHORT_ASCII) return -1;
  const header = size <= 11 ? 1 : 2;
  ensure(at + header + size);
  const start = at + header;
  for (let i = 0; i < size; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return -1; // control, non-ASCII, '"' or '\\'
    scratch[start + i] = c;
  }
  headerBefore(start, type, size);
  return start + size;
}

/** Writes a string element at `at`; returns the offset after it. */
function writeText(at: number, value: string): number {
  const end = writeShortAscii(at, value);
  if (end >= 0) return end;
  let type = TEXT;
  let text = value;
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) {
    // Lone surrogates have no UTF-8: kept as the JSON escapes JSON.stringify gives them.
    type = TEXTJ;
    text = JSON.stringify(value).slice(1, -1);
  } else if (NEEDS_ESCAPE.test(value)) type = TEXTRAW;
  const size = Buffer.byteLength(text, 'utf8');
  ensure(at + MAX_HEADER + size);
  const header = headerLength(size);
  headerBefore(at + header, type, size);
  scratch.write(text, at + header, 'utf8');
  return at + header + size;
}

function writeValue(at: number, value: AttributeValue): number {
  ensure(at + 1);
  if (value === null) {
    scratch[at] = NULL;
    return at + 1;
  }
  if (value === true || value === false) {
    scratch[at] = value ? TRUE : FALSE;
    return at + 1;
  }
  if (typeof value === 'number') {
    // Safe integers (times, counts): their text is all digits, as JSON.stringify writes them.
    if (Number.isSafeInteger(value)) return writeShortAscii(at, String(value), INT);
    // As SQLite's parser types the JSON text: INT unless it has a fraction or an exponent.
    const text = JSON.stringify(value);
    const type = /[.eE]/.test(text) ? FLOAT : INT;
    const header = headerLength(text.length);
    ensure(at + header + text.length);
    headerBefore(at + header, type, text.length);
    scratch.write(text, at + header, 'latin1');
    return at + header + text.length;
  }
  return writeText(at, value);
}

/** The JSONB blob of a flat object of attribute values (checked by the caller). */
export function encodeAttributes(attributes: Readonly<Record<string, AttributeValue | undefined>>): Buffer {
  const text = attributesText(attributes);
  return text === undefined ? encodeBytes(attributes) : Buffer.from(text, 'latin1');
}

/** encodeAttributes byte by byte into the scratch buffer: any attributes. */
export function encodeBytes(attributes: Readonly<Record<string, AttributeValue | undefined>>): Buffer {
  let end = MAX_HEADER;
  // for...in in Object.keys' order (own keys; no key array a record), inherited keys skipped.
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    const value = attributes[key];
    if (value === undefined) continue; // as JSON.stringify leaves it out
    end = writeText(end, key);
    end = writeValue(end, value);
  }
  const start = headerBefore(MAX_HEADER, OBJECT, end - MAX_HEADER);
  return Buffer.from(scratch.subarray(start, end));
}

/** A string JSONB stores as its characters (TEXT): printable ASCII JSON does not escape, at most 255 long. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]{0,255}$/;
/** Elements of keys and short values (header and text) by their string: the same few in every record. */
const elements = new Map<string, string>();
/** Strings longer than this (hashes, ids) are not kept in `elements`: each comes once. */
const KEPT_LENGTH = 32;

/** A header as latin1 characters (headerBefore's bytes). */
function headerText(type: number, size: number): string {
  if (size <= 11) return String.fromCharCode((size << 4) | type);
  if (size <= 0xff) return String.fromCharCode(0xc0 | type, size);
  if (size <= 0xffff) return String.fromCharCode(0xd0 | type, size >>> 8, size & 0xff);
  return String.fromCharCode(0xe0 | type, size >>> 24, (size >>> 16) & 0xff, (size >>> 8) & 0xff, size & 0xff);
}

/** A plain string's TEXT element as latin1 characters; undefined for any other string. */
function textElement(value: string): string | undefined {
  const kept = elements.get(value);
  if (kept !== undefined) return kept;
  if (!PLAIN.test(value)) return undefined;
  const element = headerText(TEXT, value.length) + value;
  if (value.length <= KEPT_LENGTH) {
    if (elements.size >= 1024) elements.clear(); // a bound for stores with many attribute names
    elements.set(value, element);
  }
  return element;
}

/**
 * The last two numbers' elements: a memory's times are one value, and a batch's the same; its
 * importance is another. One slot made every record encode both again (importance, then the time).
 */
let lastNumber: number | undefined;
let lastNumberElement = '';
let otherNumber: number | undefined;
let otherNumberElement = '';

/** A number's element as latin1 characters (writeValue's bytes). */
function numberElement(value: number): string {
  if (value === lastNumber) return lastNumberElement; // 0 and -0 alike: both are written "0"
  if (value === otherNumber) return otherNumberElement;
  // As writeValue: a safe integer's digits as INT, else JSON's text, INT unless it has a fraction or exponent.
  const safe = Number.isSafeInteger(value);
  const text = safe ? String(value) : JSON.stringify(value);
  otherNumber = lastNumber;
  otherNumberElement = lastNumberElement;
  lastNumber = value;
  lastNumberElement = headerText(safe || !/[.eE]/.test(text) ? INT : FLOAT, text.length) + text;
  return lastNumberElement;
}

/**
 * The same bytes as encodeBytes, as one latin1 string (one native copy a record instead of a write
 * per character), when every key and string value is plain (PLAIN); undefined otherwise (encodeBytes
 * then writes it).
 */
function attributesText(attributes: Readonly<Record<string, AttributeValue | undefined>>): string | undefined {
  let body = '';
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    const value = attributes[key];
    if (value === undefined) continue;
    const name = textElement(key);
    if (name === undefined) return undefined;
    let element: string | undefined;
    if (value === null) element = '\x00';
    else if (value === true) element = '\x01';
    else if (value === false) element = '\x02';
    else if (typeof value === 'number') element = numberElement(value);
    else element = textElement(value);
    if (element === undefined) return undefined;
    body += name + element;
  }
  return headerText(OBJECT, body.length) + body;
}
