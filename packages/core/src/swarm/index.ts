export { createTeam, Team, TeamMember, type TeamOptions, type Visibility } from './team';
