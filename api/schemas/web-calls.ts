import { z } from '../zod';
import { boundedJsonObject } from './limits';
import type { Documents, SameShape } from './common';
import type { WebCallStarted as DomainWebCallStarted } from '../../domain/calls/start-web-call';

export const WebCallRequest = z
  .object({ initial_context: boundedJsonObject('Variables for the prompts.').nullish() })
  .openapi('WebCallRequest', { example: { initial_context: { first_name: 'Ada' } } });
export type WebCallRequest = z.output<typeof WebCallRequest>;

export const WebCallStarted = z
  .object({
    workflow_run_id: z.number().int(),
    workflow_run_name: z.string(),
    token: z.string().openapi({
      description:
        'Joins this run, once: worth nothing after `expires_at` if the call has not started, and refused once a ' +
        'browser has joined with it.',
    }),
    expires_at: z
      .string()
      .openapi({ description: 'When the token stops admitting a browser (30 s after the request).' }),
    page_url: z.string().openapi({
      description:
        'The page to talk to the agent from (microphone over WebRTC, live transcript, hang-up button): open it, or ' +
        'embed it from an origin of WEB_CALL_ALLOWED_ORIGINS. The token is in its fragment.',
    }),
    signalling_url: z.string().openapi({
      description:
        "The call's signalling WebSocket (SDP offer and answer, transcript and agent events), for clients that bring " +
        'their own page (docs/guides/testing-agents.md).',
    }),
  })
  .openapi('WebCallStarted', {
    example: {
      workflow_run_id: 502,
      workflow_run_name: 'call-502',
      token: '1790000030.q5Y2bC3kq9y1L0m8Vd7TgGx0hJ2pP4uW6sX8zA1cE3e',
      expires_at: '2026-09-21T10:00:30.000Z',
      page_url:
        'https://switchboard.example.com/web-call#run=502&token=1790000030.q5Y2bC3kq9y1L0m8Vd7TgGx0hJ2pP4uW6sX8zA1cE3e',
      signalling_url:
        'wss://switchboard.example.com/api/v1/telephony/web/media/502?token=1790000030.q5Y2bC3kq9y1L0m8Vd7TgGx0hJ2pP4uW6sX8zA1cE3e',
    },
  });
export type WebCallStarted = z.output<typeof WebCallStarted>;
export type WebCallStartedDocumented = Documents<SameShape<WebCallStarted, DomainWebCallStarted>>;
