import { type AgentMemory, invalidInput } from '@agentmem/core';

/** The provider-options key the middleware reads per call: `providerOptions: { agentmem: { ... } }`. */
export const PROVIDER_OPTIONS_KEY = 'agentmem';

/** Per-call options, passed as `providerOptions.agentmem` to `generateText` / `streamText`. */
export interface AgentMemoryCallOptions {
  /** Tenant scope for this call (e.g. the signed-in user's id). */
  tenant?: string;
  /** Alias of `tenant`. */
  userId?: string;
  /** Branch for `project` and `reference` memories. */
  branch?: string;
  /** Provenance written on extracted memories. */
  agentId?: string;
  /** A file the user is working on (activates skills by glob). */
  filePath?: string;
  /** The files the user is working on (activate skills by glob), with `filePath`. */
  files?: string[];
  /** The thread or conversation: its latest session summary leads the context block, and `sessionMiddleware` keeps it up to date. */
  sessionId?: string;
  /** `false`: the prompt is passed as is (no context block, no compaction). */
  inject?: boolean;
  /**
   * `false`: nothing is learned from this call (no extraction, no session
   * summary update); `true`: extract even if `extraction.auto` is off.
   */
  extract?: boolean;
}

const STRING_KEYS = ['tenant', 'userId', 'branch', 'agentId', 'filePath', 'sessionId'] as const;
const BOOLEAN_KEYS = ['inject', 'extract'] as const;
const LIST_KEYS = ['files'] as const;

/** Reads and checks `providerOptions.agentmem`; unknown keys and wrong types are refused. */
export function readCallOptions(providerOptions: Record<string, unknown> | undefined): AgentMemoryCallOptions {
  const raw = providerOptions?.[PROVIDER_OPTIONS_KEY];
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalidInput(`providerOptions.${PROVIDER_OPTIONS_KEY} must be an object such as { tenant: 'user-1' }.`);
  }
  const options: AgentMemoryCallOptions = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if ((STRING_KEYS as readonly string[]).includes(key)) {
      if (typeof value !== 'string') {
        throw invalidInput(`providerOptions.${PROVIDER_OPTIONS_KEY}.${key} must be a string, got ${typeof value}.`);
      }
      options[key as (typeof STRING_KEYS)[number]] = value;
    } else if ((LIST_KEYS as readonly string[]).includes(key)) {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
        throw invalidInput(`providerOptions.${PROVIDER_OPTIONS_KEY}.${key} must be a list of path strings.`);
      }
      options[key as (typeof LIST_KEYS)[number]] = [...value];
    } else if ((BOOLEAN_KEYS as readonly string[]).includes(key)) {
      if (typeof value !== 'boolean') {
        throw invalidInput(
          `providerOptions.${PROVIDER_OPTIONS_KEY}.${key} must be true or false, got ${typeof value}.`,
        );
      }
      options[key as (typeof BOOLEAN_KEYS)[number]] = value;
    } else {
      throw invalidInput(
        `Unknown option providerOptions.${PROVIDER_OPTIONS_KEY}.${key}; use ${[...STRING_KEYS, ...LIST_KEYS, ...BOOLEAN_KEYS].join(', ')}.`,
      );
    }
  }
  if (options.tenant !== undefined && options.userId !== undefined && options.tenant !== options.userId) {
    throw invalidInput(
      `providerOptions.${PROVIDER_OPTIONS_KEY}: tenant and userId name the same scope; give one of them.`,
    );
  }
  return options;
}

/** The memory a call works in: the middleware's, narrowed to the call's tenant, branch and agent. */
export function scopedMemory(memory: AgentMemory, call: AgentMemoryCallOptions): AgentMemory {
  return memory.withScope({ tenant: call.tenant ?? call.userId, branch: call.branch, agentId: call.agentId });
}
