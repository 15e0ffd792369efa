export type { FormReading, MultipartForm } from "./multipart_form.ts";
export { isMultipart, multipartBodies, readMultipartForm } from "./multipart_form.ts";
export type { SpooledUpload } from "./spooled_upload.ts";
export { bufferUpload, spoolUpload } from "./spooled_upload.ts";
export type { UploadSlots } from "./upload_slots.ts";
export { beginUpload, lingerUnreadBody, uploadSlots } from "./upload_slots.ts";
