export type { FormReading, MultipartForm } from "./multipart_form.ts";
export { FIELD_BYTES, FORM_OVERHEAD_BYTES, isMultipart, multipartBodies, readMultipartForm } from "./multipart_form.ts";
export type { SpooledUpload } from "./spooled_upload.ts";
export { bufferUpload, SPOOL_CHUNK_BYTES, spoolUpload } from "./spooled_upload.ts";
export type { UploadSlots } from "./upload_slots.ts";
export { beginUpload, LINGER, lingerUnreadBody, UPLOADS_IN_FLIGHT, uploadSlots } from "./upload_slots.ts";
