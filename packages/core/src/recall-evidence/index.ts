export { byScore, endsInQuestion, speakerOf, turnPlace } from './conversation-turn';
export { isListQuestion } from './list-question';
export { applyReplyEvidence, REPLY_ANSWER_WEIGHT, REPLY_EVIDENCE_WEIGHT, replyWeightFor } from './reply-evidence';
export {
  applySpeakerFocus,
  FOCUS_CONFIDENCE,
  LISTENER_MENTION_PENALTY,
  LIST_FOCUS_WEIGHT,
  SPEAKER_FOCUS_WEIGHT,
  type SpeakerFocusOptions,
} from './speaker-focus';
