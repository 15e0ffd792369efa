export { readCsvFile, resultFileLines } from "./csv_file.ts";
