"""The seed's acceptance run: 20 varied Chinese purchase requests → the purchase-order schema, on
the embedded model, constrained, greedy. Every output whose finish_reason is ``stop`` must parse
and validate; truncations (``length``) are counted and reported, not hidden. Content quality is
whatever a 135M model produces — masks guarantee form, not content.

    python -m bench.purchase_orders --json [--max-tokens 256]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REQUESTS = [
    "请为行政部生成一份采购申请：向联想采购2台笔记本电脑，每台5999元，加急。",
    "采购申请：从得力文具采购A4复印纸50包，每包25元。",
    "研发部需要采购3台戴尔显示器，型号U2723QE，单价3299元，特急。",
    "请帮市场部向京东采购10个移动硬盘，每个499元，普通。",
    "财务部申请采购一台惠普激光打印机，价格1899元。",
    "向华为采购5部手机，型号Mate 60，单价6999元，加急处理。",
    "后勤部采购办公椅20把，供应商宜家，每把899元。",
    "申请采购两箱矿泉水，每箱48元，供应商是农夫山泉。",
    "IT部门需要向思科采购4台交换机，每台12000元，特急。",
    "人事部采购100支签字笔，每支3元，供应商晨光文具。",
    "请向苹果公司采购3台MacBook Pro，每台15999元，用于设计部。",
    "采购会议室投影仪1台，供应商爱普生，价格4599元，普通。",
    "向小米采购空气净化器6台，单价1299元，行政部使用。",
    "申请从西门子采购工业传感器8个，每个2350元，加急。",
    "生产部需要采购劳保手套200双，每双6.5元。",
    "向顺丰采购快递包装箱500个，每个2.8元，普通。",
    "请采购服务器内存条16条，供应商金士顿，每条899元，特急。",
    "培训部采购白板2块，每块350元，另加白板笔一盒25元。",
    "向海尔采购冰箱1台，价格3999元，员工休息室使用。",
    "采购咖啡豆10公斤，供应商星巴克，每公斤260元，普通。",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument(
        "--open-objects", action="store_true", help="as generate --open-objects (undeclared keys allowed)"
    )
    parser.add_argument("--schema-prompt", default="compact", choices=("compact", "json", "none"))
    parser.add_argument("--schema", default=str(ROOT / "docs/examples/purchase_order.json"))
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    from gramwright.generation import Generator, SamplingOptions
    from gramwright.sources import load_for_generation

    source = load_for_generation(args.schema, open_objects=args.open_objects or None)
    approximations = source.inexact()
    generator = Generator()
    runs: list[dict[str, Any]] = []
    for i, request in enumerate(REQUESTS):
        result = generator.run(
            source,
            request,
            sampling=SamplingOptions(max_tokens=args.max_tokens),
            schema_prompt=args.schema_prompt,
        )
        assert result.validation is not None
        verdict = result.validation.to_dict()
        runs.append(
            {
                "request": request,
                "finish_reason": result.finish_reason,
                "tokens": result.tokens,
                **verdict,
                "ms_per_token": result.metrics["ms_per_token"],
                "mask_us_p50": result.metrics["mask_us_p50"],
                "mask_us_p99": result.metrics["mask_us_p99"],
                "clipped_mass_avg": result.metrics["clipped_mass_avg"],
                "text": result.text,
            }
        )
        print(f"[{i + 1}/{len(REQUESTS)}] {result.finish_reason} valid={verdict['valid']}", file=sys.stderr)
    stops = [r for r in runs if r["finish_reason"] == "stop"]
    summary = {
        "open_objects": source.generation_objects == "open",
        "schema_prompt": args.schema_prompt,
        "requests": len(runs),
        "stop": len(stops),
        "length": sum(r["finish_reason"] == "length" for r in runs),
        "stop_parsed": sum(r["parsed"] for r in stops),
        "stop_valid": sum(r["valid"] for r in stops),
        "approximated_keywords": [f"{e.pointer} {e.keyword}: {e.reason}" for e in approximations],
        "ms_per_token_median": statistics.median(r["ms_per_token"] for r in runs),
        "runs": runs,
    }
    print(json.dumps(summary, ensure_ascii=False, indent=2) if args.json else summary)
    if summary["stop_valid"] != summary["stop"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
