/** Resource URIs. Names are percent-encoded: skill names may hold spaces or slashes. */
export const STATS_URI = 'agentmem://stats';
export const SKILL_URI_TEMPLATE = 'skill://{name}';
export const SESSION_URI_TEMPLATE = 'session://{id}';
/** The session of `--session`, else the most recently updated summary. */
export const CURRENT_SESSION = 'current';

export const skillUri = (name: string) => `skill://${encodeURIComponent(name)}`;
export const sessionUri = (id: string) => `session://${encodeURIComponent(id)}`;
