//! Sweep curves drawn as SVG with `plotters`: recall, precision and F1 of each method against
//! the swept parameter, and the size of the pool.

use std::ops::Range;
use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::methods::PoolRow;
use super::sweep::SweepReport;

/// Reads one figure of a row.
type Metric = fn(&PoolRow) -> f64;

/// A panel's chart: the swept values along x, a figure along y.
type Panel<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The x axis every panel shares: where the swept values lie, its title, how many labels it
/// takes and how a position is labelled.
struct XAxis<'x> {
    range: Range<f64>,
    name: &'x str,
    labels: usize,
    label_of: &'x dyn Fn(&f64) -> String,
}

/// A plot that could not be drawn or written.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the plot {path}: {reason}")]
pub struct PlotError {
    pub path: String,
    pub reason: String,
}

/// Draws `report` into an SVG file at `path`: four panels side by side.
pub fn plot_sweep(report: &SweepReport, path: &Path) -> Result<(), PlotError> {
    draw(report, path).map_err(|reason| PlotError {
        path: path.display().to_string(),
        reason,
    })
}

fn draw(report: &SweepReport, path: &Path) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let labels: Vec<&str> = report.points.iter().map(|p| p.value.as_str()).collect();
    // Numeric values are placed by value; others (such as bands) one per step, labelled.
    let numeric: Option<Vec<f64>> = labels.iter().map(|l| l.parse::<f64>().ok()).collect();
    let xs: Vec<f64> = match &numeric {
        Some(values) => values.clone(),
        None => (0..labels.len()).map(|i| i as f64).collect(),
    };
    let (mut low, mut high) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(*x), h.max(*x)));
    if xs.is_empty() {
        (low, high) = (0.0, 1.0);
    }
    let pad = ((high - low) * 0.05).max(0.05);
    let x_range = (low - pad)..(high + pad);
    let label_of = |x: &f64| -> String {
        if numeric.is_some() {
            let s = format!("{x:.2}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels
                    .get(i as usize)
                    .map(|s| s.to_string())
                    .unwrap_or_default()
            } else {
                String::new()
            }
        }
    };

    let root = SVGBackend::new(path, (1600, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (title, body) = root.split_vertically(36);
    title
        .titled(
            &format!(
                "{} swept over {} documents (reference: similarity ≥ {})",
                report.parameter, report.documents, report.threshold
            ),
            ("sans-serif", 20),
        )
        .map_err(|e| err(&e))?;
    let x_axis = XAxis {
        range: x_range,
        name: report.parameter.as_str(),
        labels: labels.len().clamp(2, 12),
        label_of: &label_of,
    };
    let panels = body.split_evenly((1, 4));
    let metrics: [(&str, Metric); 3] = [
        ("recall", |r| r.recall),
        ("precision", |r| r.precision),
        ("F1", |r| r.f1),
    ];
    for (panel, (name, metric)) in panels.iter().zip(metrics) {
        let mut chart = panel_chart(panel, name, 40, 0f64..1.05, &x_axis)?;
        for (i, method) in report.methods.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let points: Vec<(f64, f64)> = report
                .points
                .iter()
                .zip(&xs)
                .filter_map(|(p, x)| {
                    p.rows
                        .iter()
                        .find(|r| r.method == *method)
                        .map(|r| (*x, metric(r)))
                })
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(format!("{method} {}", method.title()))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 3, color.filled())),
                )
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
    }
    // The pool: verified pairs at each point.
    let most = report
        .points
        .iter()
        .map(|p| p.pool)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let caption = "verified pairs (the pool)";
    let mut chart = panel_chart(&panels[3], caption, 56, 0f64..most * 1.1, &x_axis)?;
    let pool: Vec<(f64, f64)> = report
        .points
        .iter()
        .zip(&xs)
        .map(|(p, x)| (*x, p.pool as f64))
        .collect();
    chart
        .draw_series(LineSeries::new(pool.clone(), BLACK.stroke_width(2)))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(pool.into_iter().map(|p| Circle::new(p, 3, BLACK.filled())))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// A panel's chart with its caption and its mesh drawn: `y_label_width` pixels for the labels
/// of `y`, the x axis as every panel has it.
fn panel_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    caption: &str,
    y_label_width: u32,
    y: Range<f64>,
    x: &XAxis<'_>,
) -> Result<Panel<'a, 'b>, String> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(32)
        .y_label_area_size(y_label_width)
        .build_cartesian_2d(x.range.clone(), y)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x.name)
        .x_labels(x.labels)
        .x_label_formatter(x.label_of)
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

#[cfg(test)]
mod tests {
    use super::super::sweep::SweepPoint;
    use super::*;
    use dupfinder_signature::methods::Method;

    fn row(method: Method, recall: f64) -> PoolRow {
        PoolRow {
            method,
            name: method.title(),
            signed: 1,
            found: 1,
            verified: 1,
            recall,
            precision: 1.0,
            f1: recall,
            oversized_groups: 0,
            sign_ms: 0.0,
            pair_ms: 0.0,
            paper: None,
        }
    }

    #[test]
    fn sweep_plot_is_an_svg_with_every_method() {
        let report = SweepReport {
            parameter: "imatch_band".into(),
            methods: vec![Method::A7, Method::A11],
            documents: 10,
            threshold: 0.8,
            points: vec![
                SweepPoint {
                    value: "0.1-0.9".into(),
                    pool: 4,
                    rows: vec![row(Method::A7, 0.25), row(Method::A11, 1.0)],
                },
                SweepPoint {
                    value: "0.2-0.99".into(),
                    pool: 4,
                    rows: vec![row(Method::A7, 0.5), row(Method::A11, 1.0)],
                },
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sweep.svg");
        plot_sweep(&report, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
        assert!(svg.contains("A7 LexRand") && svg.contains("A11 Decomposition"));
        assert!(svg.contains("0.2-0.99"));
        assert!(svg.contains("<polyline"));
        // Writing where no file can be created is an error, not a panic.
        assert!(plot_sweep(&report, &dir.path().join("missing/dir/x.svg")).is_err());
    }
}
