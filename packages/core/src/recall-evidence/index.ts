export { byScore, endsInQuestion, speakerOf, turnPlace } from './conversation-turn';
export { isListQuestion } from './list-question';
export { applyReplyEvidence, REPLY_EVIDENCE_WEIGHT } from './reply-evidence';
export {
  applySpeakerFocus,
  FOCUS_CONFIDENCE,
  LISTENER_MENTION_PENALTY,
  LIST_FOCUS_WEIGHT,
  SPEAKER_FOCUS_WEIGHT,
  type SpeakerFocusOptions,
} from './speaker-focus';
