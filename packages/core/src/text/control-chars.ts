/**
 * Character hygiene shared by ingest, the prompt renderer and terminal output.
 * Regexes run without the `u` flag on purpose: lone surrogates must be matchable.
 */

/** Every kind of line break a Unicode-aware splitter honours (CRLF first, so it counts once). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const LINE_BREAKS = /\r\n|[\r\n\u000b\u000c\u0085\u2028\u2029]/g;
/** Terminal escape sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ST), and two-character ESC sequences. */
const ESCAPE_SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /\u001b(?:\[[0-?]*[ -/]*[@-~]?|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[ -/]*[0-~]?)|\u009b[0-?]*[ -/]*[@-~]?/g;
/** C0 (except tab and line feed), DEL and C1 control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** The same, keeping CR too (for stored text, whose line endings are the writer's business). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS_KEEP_CR = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/** Bidirectional embeddings, overrides, isolates and marks ("Trojan Source"). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Replaces every kind of line break (CR, CRLF, VT, FF, NEL, U+2028, U+2029) with `\n`. */
export function normalizeLineBreaks(text: string): string {
  return text.replace(LINE_BREAKS, '\n');
}

/**
 * The ingest policy (the same for the API, CLI, import, MCP and merge): text
 * is stored as valid Unicode without terminal escapes or control characters.
 * Lone surrogates become U+FFFD; escape sequences, NUL and other C0/C1
 * control characters are removed; tab, line feed and carriage return stay.
 */
export function cleanStoredText(text: string): string {
  // Most text has nothing to clean: one test instead of three replacements (a merge checks every record).
  if (!NEEDS_CLEANING.test(text)) return text;
  return text.replace(LONE_SURROGATES, '\uFFFD').replace(ESCAPE_SEQUENCES, '').replace(CONTROLS_KEEP_CR, '');
}

/** Any character `cleanStoredText` acts on: a control (escapes start with one) or a surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const NEEDS_CLEANING = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ud800-\udfff]/;

/** True when `cleanStoredText` would change the text. */
export function needsCleaning(text: string): boolean {
  return cleanStoredText(text) !== text;
}

/**
 * Text safe to print on a terminal or to render: line breaks normalised to
 * `\n`, escape sequences, control characters (tab and `\n` kept), bidi
 * controls removed, lone surrogates replaced by U+FFFD.
 */
export function toDisplayText(text: string): string {
  return normalizeLineBreaks(text.replace(LONE_SURROGATES, '\uFFFD').replace(ESCAPE_SEQUENCES, ''))
    .replace(CONTROLS, '')
    .replace(BIDI, '');
}

/**
 * A one-line label as stored (tags, metadata keys, provenance): the ingest
 * policy of `cleanStoredText`, and tab and line breaks become a space.
 */
export function cleanLabel(text: string): string {
  return cleanStoredText(text).replace(/[\t\n\r]+/g, ' ');
}
