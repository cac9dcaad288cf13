// A template described as a design (docs/designer.md): compiled here, with the org's live images
// for its logo and banner blocks, into the html and text that the template pipeline then checks,
// prepares and renders like hand-written source.
import type { Db } from '../store/db.ts';
import { imagesRepo } from '../store/repositories/images.ts';
import { compileDesign, type Compiled, type DesignImage } from '../designer/module.ts';
import type { Design } from '../designer/module.ts';

/** The images a design names (logo and banner blocks) that are live images of the org. */
async function imagesOf(db: Db, orgId: string, design: Design, baseUrl: string): Promise<Map<string, DesignImage>> {
  const ids = new Set(design.blocks.flatMap((b) => (b.type === 'logo' || b.type === 'banner' ? [b.imageId] : [])));
  const found = new Map<string, DesignImage>();
  for (const id of ids) {
    const image = await imagesRepo.find(db, orgId, id);
    if (image) found.set(id, { url: `${baseUrl}/v1/images/${id}`, width: image.width, height: image.height });
  }
  return found;
}

export async function compileForOrg(db: Db, orgId: string, design: Design, baseUrl: string): Promise<Compiled> {
  const base = baseUrl.replace(/\/$/, '');
  return compileDesign(design, { baseUrl: base, images: await imagesOf(db, orgId, design, base) });
}
