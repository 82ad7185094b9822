import { invalidInput } from '../errors';

/**
 * Bounds of what one memory may carry, checked on every way in (remember,
 * update, import, merge). docs/core.md, "Limits", says why each is where it is.
 */
export interface WriteLimits {
  /** Longest content (and context), in characters. Default 32,000 (about 8k tokens). */
  maxContentLength: number;
  /** Largest metadata, as UTF-8 bytes of its JSON. Default 65,536 (64 KiB). */
  maxMetadataBytes: number;
  /** Deepest nesting of objects and arrays in metadata (the object itself is 1). Default 20. */
  maxMetadataDepth: number;
  /** Most keys in metadata, counted over every nested object. Default 1,000. */
  maxMetadataKeys: number;
  /** Most tags on one memory. Default 64. */
  maxTags: number;
  /** Longest tag, in characters. Default 128. */
  maxTagLength: number;
}

export const DEFAULT_WRITE_LIMITS: Readonly<WriteLimits> = Object.freeze({
  maxContentLength: 32_000,
  maxMetadataBytes: 65_536,
  maxMetadataDepth: 20,
  maxMetadataKeys: 1_000,
  maxTags: 64,
  maxTagLength: 128,
});

/** Identifiers are fixed-size: they are keys, not data (a longer one is a bug, not a need). */
export const MAX_ID_LENGTH = 256;
export const MAX_TENANT_LENGTH = 256;
export const MAX_AGENT_ID_LENGTH = 256;
export const MAX_SESSION_ID_LENGTH = 256;
export const MAX_NAMESPACE_LENGTH = 512;
/** Provenance labels (`mergedFrom`: a snapshot's path or a branch name). */
export const MAX_LABEL_LENGTH = 4096;

/** The store's limits: the defaults, with the ones the options raise or lower. */
export function resolveWriteLimits(
  maxContentLength: number | undefined,
  limits: Partial<Omit<WriteLimits, 'maxContentLength'>> | undefined,
): WriteLimits {
  if (limits !== undefined && (limits === null || typeof limits !== 'object')) {
    throw invalidInput('limits must be an object such as { maxMetadataBytes: 262144 }.');
  }
  const out: WriteLimits = { ...DEFAULT_WRITE_LIMITS };
  const given: Partial<WriteLimits> = {
    ...(limits ?? {}),
    ...(maxContentLength !== undefined ? { maxContentLength } : {}),
  };
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_WRITE_LIMITS)) {
      throw invalidInput(`Unknown limit ${key}: use ${Object.keys(DEFAULT_WRITE_LIMITS).join(', ')}.`);
    }
    if (!Number.isSafeInteger(value) || (value as number) < 1) {
      throw invalidInput(`${key} must be a positive whole number, got ${JSON.stringify(value)}.`);
    }
    out[key as keyof WriteLimits] = value as number;
  }
  return out;
}
