export { byScore, speakerOf, turnPlace } from './conversation-turn';
export { applyReplyEvidence, REPLY_EVIDENCE_WEIGHT } from './reply-evidence';
export { applySpeakerFocus, SPEAKER_FOCUS_WEIGHT } from './speaker-focus';
