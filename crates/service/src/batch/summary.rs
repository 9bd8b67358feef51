//! A batch's summary: one item per file, as JSON or CSV.

use serde::{Deserialize, Serialize};

use crate::library::FileCheck;
use dupfinder_common::error_code::ErrorCode;

/// Why a file of a batch has no report: the code and message it would get checked alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemError {
    pub code: String,
    pub message: String,
}

/// One file of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchItem {
    pub file: String,
    /// The file's report (`null` when it failed or the batch asked `"store": false`).
    pub report_id: Option<String>,
    pub verdict: Option<String>,
    pub similarity_index: Option<f64>,
    /// Words of the file's text.
    pub words: Option<usize>,
    pub error: Option<ItemError>,
}

impl BatchItem {
    /// A file that was checked; its report, when one is kept, is named afterwards.
    pub fn checked(file: String, checked: &FileCheck) -> BatchItem {
        BatchItem {
            file,
            report_id: None,
            verdict: Some(checked.report.verdict.as_str().to_string()),
            similarity_index: Some(checked.report.similarity_index),
            // The words the index is a share of, as the report shows them.
            words: Some(checked.report.words),
            error: None,
        }
    }

    /// A file that was not checked, with the code and message it would get checked alone.
    pub fn failed(file: String, code: ErrorCode, message: impl Into<String>) -> BatchItem {
        BatchItem {
            file,
            report_id: None,
            verdict: None,
            similarity_index: None,
            words: None,
            error: Some(ItemError {
                code: code.to_string(),
                message: message.into(),
            }),
        }
    }
}

/// The items as CSV with a header row.
pub fn items_csv(items: &[BatchItem]) -> String {
    let mut out =
        String::from("file,report_id,verdict,similarity_index,words,error_code,error_message\n");
    for item in items {
        let error = item.error.as_ref();
        let fields = [
            csv_field(&item.file),
            item.report_id.clone().unwrap_or_default(),
            item.verdict.clone().unwrap_or_default(),
            item.similarity_index
                .map(|s| s.to_string())
                .unwrap_or_default(),
            item.words.map(|w| w.to_string()).unwrap_or_default(),
            error.map(|e| csv_field(&e.code)).unwrap_or_default(),
            error.map(|e| csv_field(&e.message)).unwrap_or_default(),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
pub fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_has_a_header_and_quotes_what_needs_it() {
        let items = [
            BatchItem {
                file: "a, b.pdf".into(),
                report_id: Some("r1".into()),
                verdict: Some("partial".into()),
                similarity_index: Some(0.25),
                words: Some(300),
                error: None,
            },
            BatchItem {
                file: "scan.pdf".into(),
                report_id: None,
                verdict: None,
                similarity_index: None,
                words: None,
                error: Some(ItemError {
                    code: "no_text_layer".into(),
                    message: "the PDF has \"no\" text".into(),
                }),
            },
        ];
        assert_eq!(
            items_csv(&items),
            "file,report_id,verdict,similarity_index,words,error_code,error_message\n\
             \"a, b.pdf\",r1,partial,0.25,300,,\n\
             scan.pdf,,,,,no_text_layer,\"the PDF has \"\"no\"\" text\"\n"
        );
    }
}
