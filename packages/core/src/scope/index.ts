export {
  assertBranchName,
  assertMemoryType,
  BRANCH_SCOPED_TYPES,
  branchOfNamespace,
  GLOBAL_TYPES,
  HISTORY_NAMESPACE,
  isMemoryType,
  MEMORY_TYPES,
  namespaceFor,
  recallNamespaces,
  SKILLS_NAMESPACE,
  SYSTEM_NAMESPACE_PREFIX,
} from './namespaces';
