/**
 * Makes retrieved text inert inside the context block: it cannot close or
 * reopen the block, fake a chat-template role marker, or (single-line mode)
 * start a heading or a new line of its own.
 */
export function sanitizeForPrompt(text: string, options: { singleLine?: boolean } = {}): string {
  let out = text
    // Block delimiters and any other tag-like angle brackets become look-alikes.
    .replace(/</g, '‹')
    .replace(/>/g, '›')
    // Chat-template control tokens (<|im_start|>, [INST], etc.) lose their brackets.
    .replace(/\[\/?INST\]/gi, (m) => m.replace(/\[/g, '(').replace(/\]/g, ')'))
    .replace(/\|(im_start|im_end|system|user|assistant|endoftext)\|/gi, '¦$1¦');
  if (options.singleLine) {
    out = out.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  } else {
    // A line that poses as a role ("System: ...") is quoted so it reads as data.
    out = out.replace(/^(\s*)(system|assistant|user|developer|tool)(\s*:)/gim, '$1"$2"$3');
  }
  return out;
}
