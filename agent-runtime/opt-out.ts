/**
 * The common ways a callee asks not to be called again, recognized in what they said whatever the
 * policy: "stop calling me", "remove me from your list", "do not call me", "take me off your
 * list", "put me on your do-not-call list", "unsubscribe". A negation before it ("don't stop
 * calling me") is not an opt-out.
 */
const OPT_OUT_PATTERNS = [
  /\bstop (?:calling|phoning|ringing|contacting) (?:me|this number|us)\b/,
  /\b(?:remove|take|delete|drop) (?:me|my number|this number) (?:off|from) (?:your|the|this) (?:calling |call |contact |phone |mailing )?list\b/,
  /\b(?:do not|don't|dont|never) (?:ever )?(?:call|phone|ring|contact) (?:me|this number|us)(?: again| anymore| any more)?\b/,
  /\b(?:put|add) (?:me|my number|this number) (?:on|to) (?:your|the) do[ -]not[ -]call list\b/,
  /\bunsubscribe me\b/,
  /\bno more calls\b/,
];

/** Words that, just before a phrase, say the opposite ("please don't stop calling me"). */
const NEGATED = /\b(?:don't|do not|dont|never|not)\s+$/;

export function isOptOutRequest(text: string): boolean {
  const said = text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s+/g, ' ');
  return OPT_OUT_PATTERNS.some((pattern) => {
    const match = pattern.exec(said);
    if (!match) return false;
    // "do not call me" matches its own negation; only a negation before the phrase reverses it.
    return !NEGATED.test(said.slice(0, match.index)) || /^(?:do not|don't|dont|never)\b/.test(match[0]);
  });
}

/** What the agent says when the callee opted out and the graph has no opt-out end to go to. */
export const OPT_OUT_CLOSING = 'Understood. We will not call you again. Goodbye.';
