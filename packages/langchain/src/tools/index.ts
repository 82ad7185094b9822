export { type LoadSkillToolOptions, loadSkillTool } from './load-skill-tool';
