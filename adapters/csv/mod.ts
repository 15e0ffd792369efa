export type { CsvReading } from "./csv_file.ts";
export { checkCsvFile, csvDelimiter, resultFileLines } from "./csv_file.ts";
