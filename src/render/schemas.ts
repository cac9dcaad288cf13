import { z } from 'zod';
import { uuid } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';

/** A rendered signature, as the render route and the template preview answer it. */
export const renderedSchema = z
  .object({
    userId: uuid,
    templateId: uuid.nullable(),
    html: z.string(),
    text: z.string(),
    bytes: z.number().int().describe('UTF-8 bytes of the HTML'),
    warnings: z.array(z.string()).describe("advice for mail clients, e.g. Gmail's 10,000-character limit"),
  })
  .meta({
    id: 'RenderedSignature',
    examples: [
      {
        userId: EXAMPLE.userId,
        templateId: EXAMPLE.templateId,
        html: '<table><tr><td><strong>Ada Lovelace</strong><br>Engineer</td></tr></table>',
        text: 'Ada Lovelace\nEngineer',
        bytes: 74,
        warnings: [],
      },
    ],
  });
