import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Once, before any schema is built: adds `.openapi()` to every zod schema.
extendZodWithOpenApi(z);

export { z };
