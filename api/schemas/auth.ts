import { z } from '../zod';
import { name, text } from './common';

const EXAMPLE_USER = { id: 7, email: 'ada@example.com', name: 'Ada Lovelace', organization_id: 3 };

/**
 * An address as RFC 5321 allows one outside quotes: a dot-atom local part (letters, digits and
 * ``!#$%&'*+/=?^_`{|}~-``, up to 64) and a domain of letter-digit-hyphen labels. Emails compare
 * case-insensitively, so they are lower-cased once valid.
 */
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const Email = z
  .string()
  .max(254)
  .regex(EMAIL, { error: 'must be an email address (a local part, @, a domain name)' })
  .refine((email) => email.indexOf('@') <= 64, { error: 'the part before @ must be at most 64 characters' })
  .transform((email) => email.toLowerCase())
  .openapi({ example: 'ada@example.com' });

// bcrypt reads only the first 72 bytes; a longer password would silently lose its tail.
export const NewPassword = z
  .string()
  .min(8)
  .refine((password) => Buffer.byteLength(password) <= 72, { error: 'Password must be at most 72 bytes' })
  .openapi({ description: '8 characters to 72 bytes' });

export const SignupRequest = z
  .object({
    email: Email,
    password: NewPassword,
    name: name(255).nullish(),
  })
  .openapi('SignupRequest', {
    example: { email: 'ada@example.com', password: 'correct horse battery', name: 'Ada Lovelace' },
  });

export const LoginRequest = z
  .object({ email: Email, password: text(1024).min(1) })
  .openapi('LoginRequest', { example: { email: 'ada@example.com', password: 'correct horse battery' } });

export const UserResponse = z
  .object({
    id: z.number().int(),
    email: z.string(),
    name: z.string().nullable(),
    organization_id: z.number().int(),
  })
  .openapi('User', { example: EXAMPLE_USER });

export const SessionResponse = z
  .object({
    token: z.string().openapi({ description: 'Session token: send it as `Authorization: Bearer <token>`.' }),
    user: UserResponse,
  })
  .openapi('SessionResponse', {
    example: {
      token:
        'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI3Iiwib3JnIjozLCJqdGkiOiJkNGUxIiwiZXhwIjoxNzcyNTUwMjQ1fQ.' +
        'm3Qn4b8yGx2lq0a6sV7d1wPzR5tKcH9uE2fJ8oL3iYs',
      user: EXAMPLE_USER,
    },
  });
