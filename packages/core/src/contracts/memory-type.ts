/**
 * What a memory is about. `user` and `feedback` are global; `project` and
 * `reference` belong to the current git branch.
 */
export type MemoryType = 'user' | 'feedback' | 'project' | 'reference';
