-- Why an image was stored (src/images/service.ts): 'upload' through POST …/images (an admin's, kept
-- until an admin deletes it), 'photo' as a user's photo (POST …/users/{userId}/photo, or a
-- directory sync). A photo that is replaced or removed is deleted once nothing else uses it, so a
-- member uploading photo after photo does not fill the org's 500 images and 50 MB.
ALTER TABLE images
  ADD COLUMN origin text NOT NULL DEFAULT 'upload' CHECK (origin IN ('upload', 'photo'));
-- Of the images stored before, the photos a directory sync set are known (users.photo_source,
-- migration 140): the sync stored them, and deletes them when it replaces them. Which of the others
-- came through the photo route is not known: they stay 'upload', kept until an admin deletes them.
UPDATE images SET origin = 'photo'
  WHERE id IN (SELECT photo_image_id FROM users WHERE photo_source = 'directory' AND photo_image_id IS NOT NULL);
