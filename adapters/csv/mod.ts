export { checkCsvFile, resultFileLines } from "./csv_file.ts";
