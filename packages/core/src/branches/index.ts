export {
  type BranchInfo,
  type BranchMergeOptions,
  branchNamespaces,
  deleteBranch,
  diffBranch,
  listBranches,
  mergeBranch,
} from './branch-ops';
export { type BranchSettings, type DetectBranchOptions, detectGitBranch } from './detect-branch';
