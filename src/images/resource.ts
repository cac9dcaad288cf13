// An image's metadata as the API answers it, with the public address that serves its bytes: the one
// place an images row becomes the resource.
import type { ImageMeta } from '../store/repositories/images.ts';
import type { ImageContentType } from '../store/schema.ts';

export interface Image {
  imageId: string;
  url: string;
  contentType: ImageContentType;
  width: number;
  height: number;
  bytes: number;
  createdAt: string;
}

export function toImage(m: ImageMeta, url: string): Image {
  return {
    imageId: m.id,
    url,
    contentType: m.content_type,
    width: m.width,
    height: m.height,
    bytes: m.bytes,
    createdAt: m.created_at.toISOString(),
  };
}
