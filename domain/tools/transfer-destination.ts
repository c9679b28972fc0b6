import { lookup, renderTemplate } from '../agents/templates';
import type { ToolCallContext } from './http-tool';
import type { TransferCallConfig } from './types';

/**
 * Where a `transfer_call` tool sends the caller: a fixed (templated) destination, one the model
 * picks from an allowed list, or the first context rule that matches. Destinations are E.164
 * numbers or SIP URIs.
 */

const E164 = /^\+[1-9]\d{6,14}$/;
const SIP_URI = /^sips?:[^@\s<>"]+@[A-Za-z0-9.\-[\]:]+(?:;[^\s<>"]*)?$/i;
const CONTEXT_PATH = /^(initial_context|gathered_context)\.[A-Za-z0-9_.-]+$/;

/** An E.164 number (`+14155550123`) or a SIP URI (`sip:desk@pbx.example.com`). */
export const isTransferDestination = (value: string): boolean => E164.test(value) || SIP_URI.test(value);

export const isContextPath = (value: string): boolean => CONTEXT_PATH.test(value);

/** A destination as stored and compared: spaces, dashes and parentheses dropped from numbers. */
export function normalizedDestination(value: string): string {
  const text = value.trim();
  return /^sips?:/i.test(text) ? text : text.replace(/[\s().-]/g, '');
}

/** Why the transfer cannot start; the model is told. */
export class TransferDestinationError extends Error {}

/** The destination of one call of the tool, from its configuration, the model's arguments and the call's context. */
export function transferDestination(
  config: TransferCallConfig,
  args: Record<string, unknown>,
  context: ToolCallContext,
): string {
  let chosen: string;
  switch (config.destination_source) {
    case 'static':
      chosen = renderTemplate(config.destination ?? '', context);
      break;
    case 'dynamic': {
      const given = typeof args.destination === 'string' ? normalizedDestination(args.destination) : '';
      if (!given) throw new TransferDestinationError('a destination is required');
      const allowed = (config.allowed_destinations ?? []).map(normalizedDestination);
      if (!allowed.includes(given)) {
        throw new TransferDestinationError(`${given} is not one of the allowed destinations: ${allowed.join(', ')}`);
      }
      chosen = given;
      break;
    }
    case 'context_mapping': {
      const root = { initial_context: context.initialContext, gathered_context: context.gatheredContext };
      const matched = (config.rules ?? []).find((rule) => {
        const value = lookup(root, rule.context_path);
        const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
        return scalar && String(value).trim().toLowerCase() === rule.equals.trim().toLowerCase();
      });
      chosen = matched?.destination ?? config.fallback_destination ?? '';
      break;
    }
  }
  const destination = normalizedDestination(chosen);
  if (!isTransferDestination(destination)) {
    throw new TransferDestinationError(
      destination ? `${destination} is not an E.164 number or a SIP URI` : 'the destination is empty in this call',
    );
  }
  return destination;
}
