/**
 * The simulator's callee: deterministic, friendly replies. The first reply greets the agent with the
 * callee's name when the initial context has one (`first_name`, `name`, `customer_name`); later
 * replies cycle through a fixed list.
 */
const LATER_REPLIES = ['Yes, please go ahead.', 'Okay, that works for me.', 'Sure, thank you.'];

const NAME_KEYS = ['first_name', 'name', 'customer_name'];

export class SimulatedCallee {
  private replies = 0;
  private readonly name: string | undefined;

  constructor(initialContext: Record<string, unknown>) {
    const name = NAME_KEYS.map((key) => initialContext[key]).find(
      (value): value is string => typeof value === 'string' && value.trim() !== '',
    );
    this.name = name?.trim();
  }

  reply(): string {
    const index = this.replies;
    this.replies += 1;
    if (index === 0)
      return this.name ? `Hi, this is ${this.name}. Yes, that sounds good.` : 'Hi. Yes, that sounds good.';
    return LATER_REPLIES[(index - 1) % LATER_REPLIES.length] ?? 'Okay.';
  }
}
