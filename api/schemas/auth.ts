import { z } from '../zod';

/** Emails compare case-insensitively: they are trimmed and lower-cased before anything else. */
const Email = z.string().trim().toLowerCase().pipe(z.email()).openapi({ format: 'email', example: 'ada@example.com' });

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
    name: z.string().trim().min(1).max(255).nullish(),
  })
  .openapi('SignupRequest');

export const LoginRequest = z.object({ email: Email, password: z.string().min(1) }).openapi('LoginRequest');

export const UserResponse = z
  .object({
    id: z.number().int(),
    email: z.string(),
    name: z.string().nullable(),
    organization_id: z.number().int(),
  })
  .openapi('User');

export const SessionResponse = z
  .object({
    token: z.string().openapi({ description: 'Session token: send it as `Authorization: Bearer <token>`.' }),
    user: UserResponse,
  })
  .openapi('SessionResponse');
