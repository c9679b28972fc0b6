/**
 * The calculator tool: arithmetic over decimal numbers with `+ - * / % ^`, unary signs and
 * parentheses, parsed by a small recursive-descent parser. Nothing is evaluated as code, and the
 * input is bounded, so no expression can run long or reach anything.
 */

export class CalculatorError extends Error {}

const MAX_LENGTH = 500;
const MAX_DEPTH = 50;

type Token = { kind: 'number'; value: number } | { kind: 'op'; value: string };

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expression.length) {
    const char = expression[i] ?? '';
    if (char === ' ' || char === '\t') {
      i += 1;
    } else if ('+-*/%^()'.includes(char)) {
      tokens.push({ kind: 'op', value: char });
      i += 1;
    } else if (/[0-9.]/.test(char)) {
      const match = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(expression.slice(i));
      if (!match) throw new CalculatorError(`unexpected "${char}" at ${i + 1}`);
      tokens.push({ kind: 'number', value: Number(match[0]) });
      i += match[0].length;
    } else {
      throw new CalculatorError(`unexpected "${char}" at ${i + 1}`);
    }
  }
  return tokens;
}

class Parser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): number {
    const value = this.sum(0);
    if (this.position < this.tokens.length) throw new CalculatorError('unexpected input after the expression');
    return value;
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private takeOp(...ops: string[]): string | undefined {
    const token = this.peek();
    if (token?.kind === 'op' && ops.includes(token.value)) {
      this.position += 1;
      return token.value;
    }
    return undefined;
  }

  private sum(depth: number): number {
    let value = this.product(depth);
    for (let op = this.takeOp('+', '-'); op; op = this.takeOp('+', '-')) {
      const right = this.product(depth);
      value = op === '+' ? value + right : value - right;
    }
    return value;
  }

  private product(depth: number): number {
    let value = this.power(depth);
    for (let op = this.takeOp('*', '/', '%'); op; op = this.takeOp('*', '/', '%')) {
      const right = this.power(depth);
      if ((op === '/' || op === '%') && right === 0) throw new CalculatorError('division by zero');
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  }

  /** Right-associative: 2^3^2 is 2^9. */
  private power(depth: number): number {
    const base = this.unary(depth);
    if (!this.takeOp('^')) return base;
    return base ** this.power(depth + 1);
  }

  private unary(depth: number): number {
    if (depth > MAX_DEPTH) throw new CalculatorError('the expression is nested too deeply');
    const sign = this.takeOp('+', '-');
    if (sign) return sign === '-' ? -this.unary(depth + 1) : this.unary(depth + 1);
    return this.atom(depth);
  }

  private atom(depth: number): number {
    const token = this.peek();
    if (!token) throw new CalculatorError('the expression ends too soon');
    if (token.kind === 'number') {
      this.position += 1;
      return token.value;
    }
    if (this.takeOp('(')) {
      const value = this.sum(depth + 1);
      if (!this.takeOp(')')) throw new CalculatorError('a parenthesis is not closed');
      return value;
    }
    throw new CalculatorError(`unexpected "${token.value}"`);
  }
}

/** The value of `expression`, or a CalculatorError saying why there is none. */
export function calculate(expression: string): number {
  if (expression.length > MAX_LENGTH)
    throw new CalculatorError(`the expression is longer than ${MAX_LENGTH} characters`);
  const value = new Parser(tokenize(expression)).parse();
  if (!Number.isFinite(value)) throw new CalculatorError('the result is not a finite number');
  // Rounded to 12 significant digits, so 0.1 + 0.2 answers 0.3.
  return Number(value.toPrecision(12));
}
