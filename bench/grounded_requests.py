"""The grounded-extraction benchmark's requests: short Chinese and English texts, four schemas,
each with its gold record (``None`` where the text does not say; the schemas allow null there).

Every gold value is written in its text as the value is (strings verbatim, numbers as
``source_numbers`` reads them), so the gold record is reachable under grounding.
"""

from __future__ import annotations

from typing import Any


def _nullable(kind: str) -> dict[str, Any]:
    return {"type": [kind, "null"], "x-grounded": True}


SCHEMAS: dict[str, dict[str, Any]] = {
    "contact": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "x-grounded": True, "minLength": 1, "maxLength": 20},
            "city": {**_nullable("string"), "maxLength": 20},
            "age": {**_nullable("integer"), "minimum": 0, "maximum": 130},
            "email": {**_nullable("string"), "maxLength": 40},
        },
        "required": ["name", "city", "age", "email"],
    },
    "purchase": {
        "type": "object",
        "properties": {
            "supplier": {"type": "string", "x-grounded": True, "minLength": 1, "maxLength": 20},
            "item": {"type": "string", "x-grounded": True, "minLength": 1, "maxLength": 20},
            "quantity": {"type": "integer", "x-grounded": True, "minimum": 1},
            "unit_price": {**_nullable("number"), "minimum": 0},
            "department": {**_nullable("string"), "maxLength": 12},
        },
        "required": ["supplier", "item", "quantity", "unit_price", "department"],
    },
    "meeting": {
        "type": "object",
        "properties": {
            "topic": {"type": "string", "x-grounded": True, "minLength": 1, "maxLength": 24},
            "place": {**_nullable("string"), "maxLength": 16},
            "people": {
                "type": "array",
                "x-grounded": True,
                "items": {"type": "string", "minLength": 1, "maxLength": 12},
                "maxItems": 4,
            },
        },
        "required": ["topic", "place", "people"],
    },
    "shipment": {
        "type": "object",
        "properties": {
            "carrier": {"type": "string", "x-grounded": True, "minLength": 1, "maxLength": 16},
            "tracking": {"type": "string", "x-grounded": True, "minLength": 1, "maxLength": 24},
            "weight_kg": {**_nullable("number"), "minimum": 0},
            "destination": {**_nullable("string"), "maxLength": 20},
        },
        "required": ["carrier", "tracking", "weight_kg", "destination"],
    },
}

# (schema, text, gold)
REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    # -- contact, English
    (
        "contact",
        "Hi, I'm Maria Lopez, 34, living in Seville. Mail: maria.lopez@example.es",
        {"name": "Maria Lopez", "city": "Seville", "age": 34, "email": "maria.lopez@example.es"},
    ),
    (
        "contact",
        "New member: Tom Becker from Hamburg, age 52.",
        {"name": "Tom Becker", "city": "Hamburg", "age": 52, "email": None},
    ),
    (
        "contact",
        "Contact Priya Nair (priya@acme.io), based in Pune.",
        {"name": "Priya Nair", "city": "Pune", "age": None, "email": "priya@acme.io"},
    ),
    (
        "contact",
        "Kenji Sato is 41 and can be reached at k.sato@mail.jp.",
        {"name": "Kenji Sato", "city": None, "age": 41, "email": "k.sato@mail.jp"},
    ),
    (
        "contact",
        "Sign-up: Olga Ivanova, 27, Riga, olga.iv@post.lv",
        {"name": "Olga Ivanova", "city": "Riga", "age": 27, "email": "olga.iv@post.lv"},
    ),
    (
        "contact",
        "Please add Ahmed Khan. He lives in Leeds and is 63 years old.",
        {"name": "Ahmed Khan", "city": "Leeds", "age": 63, "email": None},
    ),
    # -- contact, Chinese
    (
        "contact",
        "联系人：王芳，34岁，住在杭州，邮箱wangfang@163.com。",
        {"name": "王芳", "city": "杭州", "age": 34, "email": "wangfang@163.com"},
    ),
    (
        "contact",
        "新客户李强，来自成都，今年45岁。",
        {"name": "李强", "city": "成都", "age": 45, "email": None},
    ),
    (
        "contact",
        "请登记：陈静，邮箱 chenjing@qq.com，城市 武汉。",
        {"name": "陈静", "city": "武汉", "age": None, "email": "chenjing@qq.com"},
    ),
    (
        "contact",
        "张伟，29岁，南京人，邮箱 zw2024@126.com",
        {"name": "张伟", "city": "南京", "age": 29, "email": "zw2024@126.com"},
    ),
    ("contact", "会员刘洋今年58岁。", {"name": "刘洋", "city": None, "age": 58, "email": None}),
    # -- purchase, Chinese
    (
        "purchase",
        "行政部向联想采购2台笔记本电脑，每台5999元。",
        {"supplier": "联想", "item": "笔记本电脑", "quantity": 2, "unit_price": 5999, "department": "行政部"},
    ),
    (
        "purchase",
        "从得力文具采购A4复印纸50包，每包25元。",
        {"supplier": "得力文具", "item": "A4复印纸", "quantity": 50, "unit_price": 25, "department": None},
    ),
    (
        "purchase",
        "研发部需要向戴尔采购3台显示器，单价3,299元。",
        {"supplier": "戴尔", "item": "显示器", "quantity": 3, "unit_price": 3299, "department": "研发部"},
    ),
    (
        "purchase",
        "市场部向京东采购10个移动硬盘。",
        {"supplier": "京东", "item": "移动硬盘", "quantity": 10, "unit_price": None, "department": "市场部"},
    ),
    (
        "purchase",
        "生产部向安达采购劳保手套200双，每双6.5元。",
        {"supplier": "安达", "item": "劳保手套", "quantity": 200, "unit_price": 6.5, "department": "生产部"},
    ),
    (
        "purchase",
        "向顺丰采购快递包装箱500个，每个2.8元。",
        {"supplier": "顺丰", "item": "快递包装箱", "quantity": 500, "unit_price": 2.8, "department": None},
    ),
    (
        "purchase",
        "后勤部从宜家采购办公椅20把，每把899元。",
        {"supplier": "宜家", "item": "办公椅", "quantity": 20, "unit_price": 899, "department": "后勤部"},
    ),
    (
        "purchase",
        "IT部向思科采购4台交换机，每台12,000元。",
        {"supplier": "思科", "item": "交换机", "quantity": 4, "unit_price": 12000, "department": "IT部"},
    ),
    (
        "purchase",
        "人事部向晨光文具采购签字笔１００支。",
        {
            "supplier": "晨光文具",
            "item": "签字笔",
            "quantity": 100,
            "unit_price": None,
            "department": "人事部",
        },
    ),
    # -- purchase, English
    (
        "purchase",
        "Order 12 toner cartridges from Brother at 45.90 each for Finance.",
        {
            "supplier": "Brother",
            "item": "toner cartridges",
            "quantity": 12,
            "unit_price": 45.90,
            "department": "Finance",
        },
    ),
    (
        "purchase",
        "Buy 3 standing desks from IKEA, 1,299 each.",
        {"supplier": "IKEA", "item": "standing desks", "quantity": 3, "unit_price": 1299, "department": None},
    ),
    (
        "purchase",
        "Sales needs 40 notebooks from Muji.",
        {"supplier": "Muji", "item": "notebooks", "quantity": 40, "unit_price": None, "department": "Sales"},
    ),
    # -- meeting, English
    (
        "meeting",
        "Budget review in Room 4B with Anna, Ben and Chloe.",
        {"topic": "Budget review", "place": "Room 4B", "people": ["Anna", "Ben", "Chloe"]},
    ),
    (
        "meeting",
        "Kickoff call for Project Atlas with Omar and Lena.",
        {"topic": "Kickoff call", "place": None, "people": ["Omar", "Lena"]},
    ),
    (
        "meeting",
        "Design sync at the Lisbon office: Rui, Ines.",
        {"topic": "Design sync", "place": "Lisbon office", "people": ["Rui", "Ines"]},
    ),
    (
        "meeting",
        "Quarterly planning in Hall A. Attendees: Mark, Sara, Yuki, Paul.",
        {"topic": "Quarterly planning", "place": "Hall A", "people": ["Mark", "Sara", "Yuki", "Paul"]},
    ),
    (
        "meeting",
        "Hiring debrief with Nora in the library.",
        {"topic": "Hiring debrief", "place": "library", "people": ["Nora"]},
    ),
    ("meeting", "Retro with Dan at Cafe Nero.", {"topic": "Retro", "place": "Cafe Nero", "people": ["Dan"]}),
    # -- meeting, Chinese
    (
        "meeting",
        "周五在三楼会议室开预算评审会，参加人：赵磊、孙梅。",
        {"topic": "预算评审会", "place": "三楼会议室", "people": ["赵磊", "孙梅"]},
    ),
    (
        "meeting",
        "产品发布会在北京国贸举行，张敏和周杰出席。",
        {"topic": "产品发布会", "place": "北京国贸", "people": ["张敏", "周杰"]},
    ),
    ("meeting", "技术分享会，主讲人何平。", {"topic": "技术分享会", "place": None, "people": ["何平"]}),
    (
        "meeting",
        "年度总结会在礼堂召开，参会：吴军、郑丽、冯涛。",
        {"topic": "年度总结会", "place": "礼堂", "people": ["吴军", "郑丽", "冯涛"]},
    ),
    (
        "meeting",
        "安全培训在二号车间，负责人高峰。",
        {"topic": "安全培训", "place": "二号车间", "people": ["高峰"]},
    ),
    # -- shipment, English
    (
        "shipment",
        "DHL parcel JD014600003 weighs 2.5 kg, going to Berlin.",
        {"carrier": "DHL", "tracking": "JD014600003", "weight_kg": 2.5, "destination": "Berlin"},
    ),
    (
        "shipment",
        "FedEx tracking 7712 9034 5521 to Austin, 12 kg.",
        {"carrier": "FedEx", "tracking": "7712 9034 5521", "weight_kg": 12, "destination": "Austin"},
    ),
    (
        "shipment",
        "UPS shipment 1Z999AA10123456784 is on its way to Toronto.",
        {"carrier": "UPS", "tracking": "1Z999AA10123456784", "weight_kg": None, "destination": "Toronto"},
    ),
    (
        "shipment",
        "Royal Mail item RM123456789GB, 0.8 kg.",
        {"carrier": "Royal Mail", "tracking": "RM123456789GB", "weight_kg": 0.8, "destination": None},
    ),
    (
        "shipment",
        "Sent with GLS, number GLS-5521-88, to Vienna, weight 7.25 kg.",
        {"carrier": "GLS", "tracking": "GLS-5521-88", "weight_kg": 7.25, "destination": "Vienna"},
    ),
    # -- shipment, Chinese
    (
        "shipment",
        "顺丰快递单号SF1234567890，重3.5公斤，寄往深圳。",
        {"carrier": "顺丰", "tracking": "SF1234567890", "weight_kg": 3.5, "destination": "深圳"},
    ),
    (
        "shipment",
        "中通运单ZT66018822，发往西安。",
        {"carrier": "中通", "tracking": "ZT66018822", "weight_kg": None, "destination": "西安"},
    ),
    (
        "shipment",
        "EMS单号EA123456785CN，重量１２公斤，目的地拉萨。",
        {"carrier": "EMS", "tracking": "EA123456785CN", "weight_kg": 12, "destination": "拉萨"},
    ),
    (
        "shipment",
        "京东物流JDV00987，重0.6公斤。",
        {"carrier": "京东物流", "tracking": "JDV00987", "weight_kg": 0.6, "destination": None},
    ),
    (
        "shipment",
        "韵达包裹YD778899，寄到厦门，重20公斤。",
        {"carrier": "韵达", "tracking": "YD778899", "weight_kg": 20, "destination": "厦门"},
    ),
]
