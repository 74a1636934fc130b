declare module 'parse-prometheus-text-format' {
  export interface PrometheusMetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }[];
  }
  export default function parsePrometheusTextFormat(text: string): PrometheusMetricFamily[];
}
