//! Files as streams: a file's characters one by one, read line by line, for the PGN reader,
//! and a CSV's bytes for the csv reader, so that a file of any size passes through an 8 kB
//! buffer.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use super::csv::CsvInput;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// The CSV at `path` as a stream: its bytes after any byte order mark, its header line, whether
/// it ends with a line end, and a count of the `"` after a byte offset (read again from the
/// file, only for the last row).
///
/// # Errors
/// When the file cannot be opened or read.
pub(super) fn csv_input(
    path: &Path,
) -> io::Result<CsvInput<impl Read + use<>, impl Fn(u64) -> io::Result<usize> + use<>>> {
    let mut file = File::open(path)?;
    let complete = file.metadata()?.len() > 0 && {
        file.seek(SeekFrom::End(-1))?;
        let mut last = [0u8];
        file.read_exact(&mut last)?;
        last[0] == b'\n'
    };
    file.seek(SeekFrom::Start(0))?;
    let mut reader = BufReader::new(file);
    let skip = if reader.fill_buf()?.starts_with(BOM) {
        reader.consume(BOM.len());
        BOM.len() as u64
    } else {
        0
    };
    let mut first = Vec::new();
    reader.read_until(b'\n', &mut first)?;
    let header = String::from_utf8_lossy(&first)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned();
    let path = path.to_path_buf();
    Ok(CsvInput {
        bytes: io::Cursor::new(first).chain(reader),
        header,
        complete,
        quotes_after: move |byte: u64| {
            let mut file = File::open(&path)?;
            file.seek(SeekFrom::Start(skip + byte))?;
            let mut quotes = 0;
            let mut reader = BufReader::new(file);
            loop {
                let chunk = reader.fill_buf()?;
                if chunk.is_empty() {
                    return Ok(quotes);
                }
                quotes += chunk.iter().filter(|&&b| b == b'"').count();
                let n = chunk.len();
                reader.consume(n);
            }
        },
    })
}

/// The characters of a UTF-8 stream (invalid bytes become U+FFFD, as
/// [`String::from_utf8_lossy`] makes them of the whole file: no invalid sequence spans a line
/// end), without a leading byte order mark. An I/O error ends the characters and is kept in
/// `error`.
pub(super) struct FileChars<R: BufRead> {
    reader: R,
    bytes: Vec<u8>,
    line: String,
    at: usize,
    started: bool,
    /// The first read error, which ended the characters.
    pub(super) error: Option<io::Error>,
    /// Whether a character other than white space was read: else the file is empty.
    pub(super) seen_text: bool,
}

impl<R: BufRead> FileChars<R> {
    pub(super) fn new(reader: R) -> Self {
        FileChars {
            reader,
            bytes: Vec::new(),
            line: String::new(),
            at: 0,
            started: false,
            error: None,
            seen_text: false,
        }
    }
}

impl<R: BufRead> Iterator for FileChars<R> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        loop {
            if let Some(c) = self.line[self.at..].chars().next() {
                self.at += c.len_utf8();
                self.seen_text |= !c.is_whitespace();
                return Some(c);
            }
            if self.error.is_some() {
                return None;
            }
            self.bytes.clear();
            self.line.clear();
            self.at = 0;
            match self.reader.read_until(b'\n', &mut self.bytes) {
                Ok(0) => return None,
                Ok(_) => {
                    self.line.push_str(&String::from_utf8_lossy(&self.bytes));
                    if !std::mem::replace(&mut self.started, true)
                        && self.line.starts_with('\u{feff}')
                    {
                        self.at = '\u{feff}'.len_utf8();
                    }
                }
                Err(e) => {
                    self.error = Some(e);
                    return None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_as_the_lossy_text_of_the_whole_file_without_its_bom() {
        let bytes = b"\xef\xbb\xbf[a \xff\"x\"]\n\xe2\x82\n  \xc3\xa9\n".to_vec();
        let whole = String::from_utf8_lossy(&bytes);
        let mut chars = FileChars::new(&bytes[..]);
        let got: String = chars.by_ref().collect();
        assert_eq!(got, whole.strip_prefix('\u{feff}').unwrap());
        assert!(chars.seen_text && chars.error.is_none());
        let mut blank = FileChars::new(&b"\xef\xbb\xbf \n\t\n"[..]);
        assert_eq!(blank.by_ref().count(), 4);
        assert!(!blank.seen_text);
    }
}
