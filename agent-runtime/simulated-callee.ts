/**
 * The simulator's callee: deterministic, friendly replies. The first reply greets the agent with the
 * callee's name when the initial context has one (`first_name`, `name`, `customer_name`); later
 * replies cycle through a fixed list. A callee whose number ends in `0688` ("OUT") asks not to be
 * called again in its first reply, so an opt-out can be tried on the simulator. A callee whose
 * initial context has a `question` asks it in its first reply (after the greeting), so an agent's
 * knowledge base can be tried on the simulator.
 */
const LATER_REPLIES = ['Yes, please go ahead.', 'Okay, that works for me.', 'Sure, thank you.'];

const NAME_KEYS = ['first_name', 'name', 'customer_name'];

/** The called number's ending that makes the simulated callee opt out. */
export const OPT_OUT_SUFFIX = '0688';

export class SimulatedCallee {
  private replies: number;
  private readonly name: string | undefined;
  private readonly optsOut: boolean;
  private readonly question: string | undefined;

  /** `repliesSoFar`: replies already given in this call (a conversation carried on after a transfer). */
  constructor(initialContext: Record<string, unknown>, repliesSoFar = 0) {
    this.replies = repliesSoFar;
    const name = NAME_KEYS.map((key) => initialContext[key]).find(
      (value): value is string => typeof value === 'string' && value.trim() !== '',
    );
    this.name = name?.trim();
    const called = initialContext.called_number;
    this.optsOut = typeof called === 'string' && called.endsWith(OPT_OUT_SUFFIX);
    const question = initialContext.question;
    this.question = typeof question === 'string' && question.trim() !== '' ? question.trim() : undefined;
  }

  reply(): string {
    const index = this.replies;
    this.replies += 1;
    if (index === 0 && this.optsOut) return 'Please stop calling me and remove me from your list.';
    if (index === 0 && this.question) return this.name ? `Hi, this is ${this.name}. ${this.question}` : this.question;
    if (index === 0)
      return this.name ? `Hi, this is ${this.name}. Yes, that sounds good.` : 'Hi. Yes, that sounds good.';
    return LATER_REPLIES[(index - 1) % LATER_REPLIES.length] ?? 'Okay.';
  }
}
