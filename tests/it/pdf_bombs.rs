//! PDFs built to make the reader do much work for few bytes, generated here: each bound of
//! `[extract]` refuses its bomb with its code, whatever lopdf and pdf-extract would have done
//! with it, and an ordinary file under the same bounds is still read.

use std::io::Write;
use std::sync::Arc;

use dupfinder::cancel::CancelFlag;
use dupfinder::extract::{ExtractError, ExtractLimits, Extractions, extract, extract_cancellable};

use crate::files::{content_type, multipart};
use crate::support::{app, catalog_with, send};

/// A PDF of `objects` (numbered from 1; the first is the catalog) with an xref table.
fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    pdf_hiding(objects, None)
}

/// [`pdf`], and when `hidden` is given, one more object whose xref entry points at the first
/// occurrence of `hidden` inside the objects: an object a parser finds only by its offset.
fn pdf_hiding(objects: &[Vec<u8>], hidden: Option<&[u8]>) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        writeln!(out, "{} 0 obj", i + 1).unwrap();
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    if let Some(hidden) = hidden {
        let at = out.windows(hidden.len()).position(|w| w == hidden).unwrap();
        offsets.push(at);
    }
    let count = offsets.len();
    let xref = out.len();
    write!(out, "xref\n0 {}\n0000000000 65535 f \n", count + 1).unwrap();
    for offset in offsets {
        writeln!(out, "{offset:010} 00000 n ").unwrap();
    }
    write!(
        out,
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        count + 1
    )
    .unwrap();
    out
}

fn stream(dictionary: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< /Length {} {dictionary} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// `n` megabytes of spaces, deflated: a content stream that inflates to `n` MiB and draws
/// nothing (cheap to parse even for a reader without bounds).
fn spaces(n: usize) -> Vec<u8> {
    deflate(&vec![b' '; n << 20])
}

const TEXT: &[u8] = b"BT /F1 12 Tf 72 700 Td (Bounded readers still read ordinary papers.) Tj ET\n";

/// Objects 1–5 of a one-page PDF whose page draws `content` with the font `F1` and the
/// XObjects `X1`… (objects 6…) in `xobjects`.
fn one_page(content: Vec<u8>, xobjects: &[Vec<u8>]) -> Vec<u8> {
    let names: String = (0..xobjects.len())
        .map(|i| format!("/X{} {} 0 R ", i + 1, i + 6))
        .collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R \
             /Resources << /Font << /F1 5 0 R >> /XObject << {names}>> >> >>"
        )
        .into_bytes(),
        content,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    objects.extend(xobjects.iter().cloned());
    pdf(&objects)
}

fn limits() -> ExtractLimits {
    ExtractLimits {
        max_inflated_bytes: 8 << 20,
        pdftotext: String::new(),
        ..ExtractLimits::default()
    }
}

fn code_of(bytes: &[u8], limits: &ExtractLimits) -> String {
    match extract(bytes, limits) {
        Ok(document) => format!("read: {:?}", document.text),
        Err(e) => e.code().to_string(),
    }
}

#[test]
fn a_content_stream_bomb_is_refused_past_the_inflated_bytes() {
    let bomb = one_page(stream("/Filter /FlateDecode", &spaces(64)), &[]);
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    assert_eq!(
        extract(&bomb, &limits()).unwrap_err(),
        ExtractError::TooMuchInflated { limit: 8 << 20 }
    );
}

#[test]
fn a_bomb_in_an_object_stream_is_refused_past_the_inflated_bytes() {
    // An object stream holding one small object, then 64 MiB of padding.
    let mut objects = b"7 0 << /Kind /Padding >>".to_vec();
    objects.resize(64 << 20, b' ');
    let bomb = one_page(
        stream("", TEXT),
        &[stream(
            "/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode",
            &deflate(&objects),
        )],
    );
    assert_eq!(code_of(&bomb, &limits()), "document_too_large");
}

#[test]
fn an_image_is_never_inflated_so_a_large_one_is_no_bomb() {
    let image = stream(
        "/Type /XObject /Subtype /Image /Width 8192 /Height 8192 /ColorSpace /DeviceGray \
         /BitsPerComponent 8 /Filter /FlateDecode",
        &spaces(64),
    );
    let mut content = b"q 595 0 0 842 0 0 cm /X1 Do Q\n".to_vec();
    content.extend_from_slice(TEXT);
    let document = extract(&one_page(stream("", &content), &[image]), &limits()).unwrap();
    assert_eq!(document.text, "Bounded readers still read ordinary papers.");
}

#[test]
fn a_page_drawn_with_too_many_operators_is_refused() {
    let limits = ExtractLimits {
        max_page_operators: 100_000,
        ..limits()
    };
    let mut content = TEXT.to_vec();
    content.extend(b"n\n".repeat(200_000));
    assert_eq!(
        extract(&one_page(stream("", &content), &[]), &limits).unwrap_err(),
        ExtractError::TooManyOperators {
            limit: 100_000,
            key: "max_page_operators"
        }
    );
}

#[test]
fn pages_drawn_with_too_many_operators_in_all_are_refused() {
    let limits = ExtractLimits {
        max_page_operators: 100_000,
        max_operators: 150_000,
        ..limits()
    };
    let mut content = TEXT.to_vec();
    content.extend(b"n\n".repeat(60_000));
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>".to_vec(),
    ];
    for _ in 0..3 {
        objects.push(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 6 0 R \
              /Resources << /Font << /F1 7 0 R >> >> >>"
                .to_vec(),
        );
    }
    objects.push(stream("", &content));
    objects.push(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec());
    assert_eq!(
        extract(&pdf(&objects), &limits).unwrap_err(),
        ExtractError::TooManyOperators {
            limit: 150_000,
            key: "max_operators"
        }
    );
}

/// A form XObject `X{n}` that draws `X{n+1}` ten times (the last one draws ten operators).
fn form_chain(levels: usize) -> Vec<Vec<u8>> {
    (0..levels)
        .map(|level| {
            let (content, resources) = if level + 1 == levels {
                ("0 0 m\n".repeat(10), String::new())
            } else {
                (
                    "/X1 Do\n".repeat(10),
                    format!("/Resources << /XObject << /X1 {} 0 R >> >>", level + 7),
                )
            };
            stream(
                &format!("/Type /XObject /Subtype /Form /BBox [0 0 10 10] {resources}"),
                content.as_bytes(),
            )
        })
        .collect()
}

#[test]
fn forms_are_counted_each_time_they_are_drawn() {
    // Six levels of ten: a million leaf operators from a page of eleven.
    let mut content = TEXT.to_vec();
    content.extend_from_slice(b"/X1 Do\n");
    assert_eq!(
        code_of(&one_page(stream("", &content), &form_chain(6)), &limits()),
        "too_many_operators"
    );
}

#[test]
fn a_form_drawn_inside_itself_is_refused() {
    let form = stream(
        "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /X1 6 0 R >> >>",
        b"/X1 Do",
    );
    let mut content = TEXT.to_vec();
    content.extend_from_slice(b"/X1 Do\n");
    assert_eq!(
        code_of(&one_page(stream("", &content), &[form]), &limits()),
        "nesting_too_deep"
    );
}

#[test]
fn deep_nesting_is_refused_before_the_parsers_recurse() {
    let deep = format!("{}1{}", "[".repeat(150), "]".repeat(150)).into_bytes();
    let in_an_object = one_page(stream("", TEXT), &[deep]);
    assert_eq!(code_of(&in_an_object, &limits()), "nesting_too_deep");
    let mut content = TEXT.to_vec();
    content.extend(format!("{}(x){} TJ\n", "[".repeat(150), "]".repeat(150)).as_bytes());
    let in_the_content = one_page(stream("", &content), &[]);
    assert_eq!(code_of(&in_the_content, &limits()), "nesting_too_deep");
}

#[test]
fn an_object_hidden_inside_a_string_is_measured_where_the_parser_reads_it() {
    // Object 7 lies inside a string of object 6, where a reader going through the file does
    // not look; lopdf goes to it by its xref offset and parses its arrays recursively.
    let hidden = format!("(7 0 obj {}1{} endobj)", "[".repeat(150), "]".repeat(150));
    let file = pdf_hiding(
        &[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R \
              /Resources << /Font << /F1 5 0 R >> >> >>"
                .to_vec(),
            stream("", TEXT),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
            hidden.into_bytes(),
        ],
        Some(b"7 0 obj"),
    );
    assert_eq!(code_of(&file, &limits()), "nesting_too_deep");
}

#[test]
fn an_object_of_an_object_stream_is_measured_where_the_parser_reads_it() {
    // The index puts object 8 inside the string that object 7 is.
    let nested = format!("{}1{}", "[".repeat(150), "]".repeat(150));
    let body = format!("({nested})");
    let index = "7 0 8 1 ".to_string();
    let objects = format!("{index}{body}");
    let file = one_page(
        stream("", TEXT),
        &[stream(
            &format!("/Type /ObjStm /N 2 /First {}", index.len()),
            objects.as_bytes(),
        )],
    );
    assert_eq!(code_of(&file, &limits()), "nesting_too_deep");
}

#[test]
fn a_file_of_too_many_objects_is_refused() {
    let limits = ExtractLimits {
        max_objects: 1_000,
        ..limits()
    };
    let padding: Vec<Vec<u8>> = (0..2_000).map(|i| format!("{i}").into_bytes()).collect();
    assert_eq!(
        extract(&one_page(stream("", TEXT), &padding), &limits).unwrap_err(),
        ExtractError::TooManyObjects { limit: 1_000 }
    );
}

#[test]
fn a_cross_reference_stream_declaring_a_million_entries_is_refused() {
    let limits = ExtractLimits {
        max_objects: 1_000,
        ..limits()
    };
    // No xref table: `startxref` points at a cross-reference stream whose zero-width
    // entries cost nothing to declare.
    let mut file = b"%PDF-1.5\n".to_vec();
    let at = file.len();
    file.extend(stream(
        "/Type /XRef /Size 1000000 /W [0 0 0] /Index [0 1000000]",
        b"",
    ));
    let mut with_header = b"1 0 obj\n".to_vec();
    with_header.extend(&file[at..]);
    file.truncate(at);
    file.extend(with_header);
    write!(file, "\nendobj\nstartxref\n{at}\n%%EOF\n").unwrap();
    assert_eq!(
        extract(&file, &limits).unwrap_err(),
        ExtractError::TooManyObjects { limit: 1_000 }
    );
}

/// `pages` empty pages sharing one empty content stream.
fn empty_pages(pages: usize) -> Vec<u8> {
    let kids: String = (0..pages).map(|i| format!("{} 0 R ", i + 4)).collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!("<< /Type /Pages /Kids [{kids}] /Count {pages} >>").into_bytes(),
        stream("", b""),
    ];
    for _ in 0..pages {
        objects.push(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 3 0 R >>".to_vec(),
        );
    }
    pdf(&objects)
}

#[test]
fn too_many_pages_are_refused_before_every_page_is_parsed() {
    let limits = ExtractLimits {
        max_pages: 10,
        ..limits()
    };
    // The loader stopped counting at twice the bound: it did not go through the 5,000.
    assert_eq!(
        extract(&empty_pages(5_000), &limits).unwrap_err(),
        ExtractError::TooManyPages {
            pages: 21,
            limit: 10
        }
    );
}

#[test]
fn a_cancelled_extraction_reads_nothing() {
    let cancel = CancelFlag::new();
    cancel.cancel();
    let ordinary = one_page(stream("", TEXT), &[]);
    assert_eq!(
        extract_cancellable(&ordinary, &limits(), &cancel).unwrap_err(),
        ExtractError::Cancelled
    );
    let document = extract(&ordinary, &limits()).unwrap();
    assert_eq!(document.text, "Bounded readers still read ordinary papers.");
}

#[tokio::test]
async fn an_uploaded_bomb_is_answered_413_in_the_error_envelope() {
    let (_dir, catalog) = catalog_with(|config| config.extract = limits());
    let app = app(catalog);
    let bomb = one_page(stream("/Filter /FlateDecode", &spaces(64)), &[]);
    let body = multipart(&[("file", Some("bomb.pdf"), &bomb)]);
    let (status, answer) = send(&app, "POST", "/api/v1/check", &content_type(), body).await;
    assert_eq!(status, 413, "{answer}");
    assert_eq!(answer["error"]["code"], "document_too_large", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_inflated_bytes"),
        "{answer}"
    );
}

/// One place and a time bound that never comes: only a cancel stops the reading of
/// [`slow_file`].
fn one_place() -> Arc<Extractions> {
    Arc::new(Extractions::new(&ExtractLimits {
        max_concurrent: 1,
        max_pages: 100_000,
        timeout_seconds: 3_600,
        ..limits()
    }))
}

/// 20,000 pages: pdf-extract walks the page tree for each page, so reading them all would take
/// minutes of CPU.
fn slow_file() -> Vec<u8> {
    empty_pages(20_000)
}

/// Starts reading [`slow_file`] and waits until it holds the one place.
async fn reading_a_slow_file(
    extractions: &Arc<Extractions>,
) -> tokio::task::JoinHandle<Result<dupfinder::extract::ExtractedDocument, ExtractError>> {
    let reading = {
        let extractions = extractions.clone();
        tokio::spawn(async move { extractions.extract(slow_file()).await })
    };
    while extractions.running() == 0 {
        tokio::task::yield_now().await;
    }
    reading
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_whose_client_left_stops_being_read_and_frees_its_place() {
    let extractions = one_place();
    let reading = reading_a_slow_file(&extractions).await;
    // The client leaves: the request's future is dropped.
    reading.abort();
    // The place comes back once the reading has stopped (bounded here only so that a
    // regression fails instead of hanging: reading the file whole takes minutes).
    tokio::time::timeout(std::time::Duration::from_secs(300), async {
        while extractions.running() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the abandoned extraction still holds its place");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_stop_stops_an_extraction_in_progress() {
    let extractions = one_place();
    let reading = reading_a_slow_file(&extractions).await;
    extractions.stop();
    assert_eq!(reading.await.unwrap().unwrap_err(), ExtractError::Cancelled);
    assert_eq!(extractions.running(), 0);
    let rtf = b"{\\rtf1\\ansi Body text of a paper about bounds.\\par}";
    assert_eq!(
        extractions.extract(rtf).await.unwrap_err(),
        ExtractError::Cancelled
    );
}
