import { z } from '../zod';
import { NewPassword } from './auth';

export const SIGNUP_RECEIVED = 'Signup received: log in with this email and password';

export const SignupAccepted = z.object({ detail: z.literal(SIGNUP_RECEIVED) }).openapi('SignupAccepted', {
  description: 'The same answer whether or not the email was already registered, so signup reveals no accounts.',
  example: { detail: SIGNUP_RECEIVED },
});

export const ChangePasswordRequest = z
  .object({
    current_password: z.string().min(1).max(1024),
    new_password: NewPassword,
  })
  .openapi('ChangePasswordRequest', {
    example: { current_password: 'correct horse battery', new_password: 'battery staple horse' },
  });
